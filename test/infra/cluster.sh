# shellcheck shell=bash
# A three-node Apache Cassandra cluster and a three-broker Apache Kafka (KRaft)
# cluster on loopback, beside the single pair of `infra.sh up`, for tests of
# Ferry on a production-like topology (replicas, quorums, one node lost).
# Sourced by infra.sh, whose helpers (jars, config rendering, process
# lifecycle) it uses; see test/infra/README.md.
#
#   infra.sh cluster up                 start every node (if needed), then wait until the
#                                       whole cluster is ready (see `wait`)
#   infra.sh cluster down [--wipe]      clean stop of every node (and delete their data)
#   infra.sh cluster status             one line per node: kind, up/down/frozen, address:port;
#                                       exit 0 only if every node is up
#   infra.sh cluster wait               until every Cassandra node reaches all three replicas
#                                       at consistency ALL and every Kafka broker lists three
#                                       brokers, with every partition of every topic in sync
#   infra.sh cluster start|stop|kill|freeze|thaw NODE
#                                       NODE: cassandra-1..3, kafka-1..3. stop = clean shutdown
#                                       (SIGTERM), kill = SIGKILL, freeze/thaw = SIGSTOP/SIGCONT
#   infra.sh cluster wipe               down, then delete every node's data and logs
#
# Node N listens on 127.0.0.N; every node of a kind uses the same ports.
# Environment (defaults in brackets), besides infra.sh's FERRY_INFRA_DIR,
# FERRY_INFRA_WAIT_SECONDS and FERRY_INFRA_STOP_SECONDS:
#   FERRY_INFRA_CLUSTER_CASSANDRA_PORT [29042]   FERRY_INFRA_CLUSTER_CASSANDRA_STORAGE_PORT [27000]
#   FERRY_INFRA_CLUSTER_KAFKA_PORT [29092]       FERRY_INFRA_CLUSTER_KAFKA_CONTROLLER_PORT [29093]
#   FERRY_INFRA_CLUSTER_CASSANDRA_HEAP [1G]      FERRY_INFRA_CLUSTER_KAFKA_HEAP [512M]
#   FERRY_INFRA_CLUSTER_CASSANDRA_JVM_OPTS [-XX:TieredStopAtLevel=1]
#                                                more JVM options of the Cassandra nodes (space-separated)
#   FERRY_INFRA_CLUSTER_KAFKA_STOP_SECONDS [10]  how long `down` lets a broker stop cleanly

CL_CASSANDRA_PORT=${FERRY_INFRA_CLUSTER_CASSANDRA_PORT:-29042}
CL_CASSANDRA_STORAGE_PORT=${FERRY_INFRA_CLUSTER_CASSANDRA_STORAGE_PORT:-27000}
CL_KAFKA_PORT=${FERRY_INFRA_CLUSTER_KAFKA_PORT:-29092}
CL_KAFKA_CONTROLLER_PORT=${FERRY_INFRA_CLUSTER_KAFKA_CONTROLLER_PORT:-29093}
CL_CASSANDRA_HEAP=${FERRY_INFRA_CLUSTER_CASSANDRA_HEAP:-1G}
# The client compiler only (C1): a node restarted under the tests' load spends much of its start compiling with C2,
# on two cores the other nodes and Ferry share. Measured on an idle cluster (2026-11-28, `cluster stop`, `start`,
# `wait` of cassandra-3): 8.5–8.9 s of CPU to ready against 13.9–16.3 s with C2, ready as fast; under the load
# of test/cluster/, a restart (start to cluster whole) took 18–36 s against 45–79 s, and that load (tens of
# requests a second) never needed the faster code. Empty: the JVM's default (C1, then C2).
read -r -a CL_CASSANDRA_JVM_OPTS <<<"${FERRY_INFRA_CLUSTER_CASSANDRA_JVM_OPTS--XX:TieredStopAtLevel=1}"
CL_KAFKA_HEAP=${FERRY_INFRA_CLUSTER_KAFKA_HEAP:-512M}

# The datacenter of every Cassandra node (GossipingPropertyFileSnitch); keyspaces
# replicate with NetworkTopologyStrategy {'dc1': 3}.
CL_DATACENTER=dc1
CL_CASSANDRA_NODES=(cassandra-1 cassandra-2 cassandra-3)
CL_KAFKA_NODES=(kafka-1 kafka-2 kafka-3)
CL_NODES=("${CL_CASSANDRA_NODES[@]}" "${CL_KAFKA_NODES[@]}")

# One token per node, evenly spaced over the Murmur3 ring (-2^63 .. 2^63-1).
CL_TOKENS=(-9223372036854775808 -3074457345618258603 3074457345618258602)

cl_index() { echo "${1##*-}"; }
cl_address() { echo "127.0.0.$(cl_index "$1")"; }
cl_port() { case $(kind_of "$1") in cassandra) echo "$CL_CASSANDRA_PORT" ;; kafka) echo "$CL_KAFKA_PORT" ;; esac; }
cl_second_port() { case $(kind_of "$1") in cassandra) echo "$CL_CASSANDRA_STORAGE_PORT" ;; kafka) echo "$CL_KAFKA_CONTROLLER_PORT" ;; esac; }
cl_endpoint() { echo "$(cl_address "$1"):$(cl_port "$1")"; }

# Comma-separated lists, as clients take them.
cl_endpoints() { # node...
  local node out=()
  for node in "$@"; do out+=("$(cl_endpoint "$node")"); done
  (
    IFS=,
    echo "${out[*]}"
  )
}

cl_check_node() {
  local node
  for node in "${CL_NODES[@]}"; do [[ ${1:-} == "$node" ]] && return 0; done
  die "expected a cluster node (${CL_NODES[*]}), got '${1:-}'"
}

# ------------------------------------------------------------- launching ----

launch_cluster_cassandra() { # node
  local node=$1 n dir seeds=() other
  n=$(cl_index "$node")
  dir=$(svc_dir "$node")
  for other in "${CL_CASSANDRA_NODES[@]}"; do seeds+=("$(cl_address "$other"):$CL_CASSANDRA_STORAGE_PORT"); done
  render_cassandra_conf "$node" "$CL_CASSANDRA_PORT" "$CL_CASSANDRA_STORAGE_PORT" \
    CLUSTER_NAME=ferry-cluster "ADDRESS=$(cl_address "$node")" "SEEDS=$(IFS=,; echo "${seeds[*]}")" \
    SNITCH=GossipingPropertyFileSnitch HINTED_HANDOFF=true
  printf 'dc=%s\nrack=rack%s\n' "$CL_DATACENTER" "$n" >"$dir/conf/cassandra-rackdc.properties"
  start_cassandra_jvm "$node" "$CL_CASSANDRA_HEAP" \
    "-Dcassandra.initial_token=${CL_TOKENS[$((n - 1))]}" \
    "-Dcassandra-rackdc.properties=file://$dir/conf/cassandra-rackdc.properties" \
    -Dcassandra.ring_delay_ms=5000 "${CL_CASSANDRA_JVM_OPTS[@]}"
}
# -Dcassandra.ring_delay_ms=5000: a node first asks the other seeds for the
# ring (a gossip shadow round) and, when none answers, starts alone only after
# the ring delay: 30 s by default, paid by the first node of every `up`. Five
# seconds are plenty on loopback.

# Every broker of the cluster is formatted with one cluster id, made once and
# kept beside the nodes (a broker wiped on its own joins the same cluster).
cl_kafka_cluster_id() {
  local file="$INFRA_DIR/cluster/kafka-cluster.id"
  [[ -s $file ]] || kafka_random_id >"$file"
  cat "$file"
}

launch_cluster_kafka() { # node
  local node=$1 other voters=()
  for other in "${CL_KAFKA_NODES[@]}"; do voters+=("$(cl_index "$other")@$(cl_address "$other"):$CL_KAFKA_CONTROLLER_PORT"); done
  render_kafka_conf "$node" "NODE_ID=$(cl_index "$node")" "ADDRESS=$(cl_address "$node")" \
    "BROKER_PORT=$CL_KAFKA_PORT" "CONTROLLER_PORT=$CL_KAFKA_CONTROLLER_PORT" \
    "VOTERS=$(IFS=,; echo "${voters[*]}")" REPLICATION=3 MIN_ISR=2
  format_kafka "$node" cl_kafka_cluster_id
  start_kafka_jvm "$node" "$CL_KAFKA_HEAP"
}

cl_start() { # node
  local node=$1 pid address port
  pid=$(find_pid "$node")
  if [[ -n $pid ]]; then
    log "$node: already running (pid $pid)"
    return 0
  fi
  ensure_libs "$(kind_of "$node")"
  mkdir -p "$(svc_dir "$node")"
  address=$(cl_address "$node")
  for port in $(cl_port "$node") $(cl_second_port "$node"); do
    port_open "$port" "$address" && die "$node: $address:$port is already in use by another process"
  done
  [[ -f $(log_file "$node") ]] && mv -f "$(log_file "$node")" "$(log_file "$node").prev"
  "launch_cluster_$(kind_of "$node")" "$node"
  log "$node: started pid $(<"$(pid_file "$node")") on $(cl_endpoint "$node") (log: $(log_file "$node"))"
}

# A frozen JVM acts on SIGTERM only once it runs again: thawed first.
cl_stop() { # node TERM|KILL
  local pid
  pid=$(find_pid "$1")
  if [[ -n $pid && $2 == TERM ]]; then kill -CONT "$pid" 2>/dev/null || true; fi
  stop_service "$1" "$2"
}

cl_signal() { # node STOP|CONT
  local node=$1 pid
  pid=$(find_pid "$node")
  [[ -n $pid ]] || die "$node: not running"
  kill "-$2" "$pid"
  log "$node: $([[ $2 == STOP ]] && echo frozen || echo thawed) (pid $pid)"
}

cl_state() { # pid -> up|frozen
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  [[ ${stat:0:1} == T ]] && echo frozen || echo up
}

cl_status() {
  local node pid rc=0 state detail
  for node in "${CL_NODES[@]}"; do
    pid=$(find_pid "$node")
    if [[ -n $pid ]]; then
      state=$(cl_state "$pid")
      [[ $state == up ]] || rc=3
      detail="pid $pid, up $(ps -o etime= -p "$pid" | tr -d ' '), RSS $(rss_of "$pid")"
      port_open "$(cl_port "$node")" "$(cl_address "$node")" || detail+=", port not open yet"
    else
      state=down
      rc=3
      detail=""
    fi
    printf '%-11s %-9s %-6s %-15s %s\n' "$node" "$(kind_of "$node")" "$state" "$(cl_endpoint "$node")" "$detail"
  done
  return $rc
}

# ------------------------------------------------------------- readiness ----

# One Cassandra node answers CQL (used between the node starts of `up`).
cl_wait_cassandra_node() { # node
  local name=$1 pid t0 out rc=0
  t0=$(now)
  pid=$(started_pid "$name")
  if [[ -z $pid ]]; then
    show_log_tail "$name"
    die "$name: not running"
  fi
  out=$(node "$HERE/cluster-probe.mjs" node "$(cl_endpoint "$name")" "$CL_DATACENTER" "$pid" "$WAIT_SECONDS" 2>&1) || rc=$?
  if [[ $rc -ne 0 ]]; then
    printf '%s\n' "$out" >&2
    show_log_tail "$name"
    return 1
  fi
  log "$name: answers after $(elapsed "$t0") s ($out)"
}

cl_wait() {
  local node pid pids=() t0 out rc=0
  t0=$(now)
  for node in "${CL_NODES[@]}"; do
    pid=$(started_pid "$node")
    [[ -n $pid ]] || die "$node: not running ('infra.sh cluster up' or 'infra.sh cluster start $node')"
    pids+=("$pid")
  done
  out=$(node "$HERE/cluster-probe.mjs" cluster "$(cl_endpoints "${CL_CASSANDRA_NODES[@]}")" "$CL_DATACENTER" \
    "$(cl_endpoints "${CL_KAFKA_NODES[@]}")" "$(IFS=,; echo "${pids[*]}")" "$WAIT_SECONDS" 2>&1) || rc=$?
  if [[ $rc -ne 0 ]]; then
    printf '%s\n' "$out" >&2
    return 1
  fi
  printf '%s\n' "$out"
  log "cluster: ready after $(elapsed "$t0") s of waiting"
}

# Kafka's three brokers start together (a broker serves only once a majority of
# the controllers is up) and cost little while Cassandra starts. Cassandra nodes
# that have all been in the ring before (their data is kept) start together too:
# each knows its peers from its own system tables, and much of a start is waiting
# (the ring delay, gossip), which the others' starts then use. The nodes of a new
# cluster start one after another: each start keeps both cores busy, and a new
# node should find a seed that answers.
cl_up() {
  local t0 node pid together=1
  t0=$(now)
  for pkg in cassandra-driver kafkajs; do
    [[ -d $REPO/node_modules/$pkg ]] || die "the readiness probe needs the project's packages ($pkg is missing): run npm install first"
  done
  ensure_libs cassandra
  ensure_libs kafka
  mkdir -p "$INFRA_DIR/cluster"
  for node in "${CL_KAFKA_NODES[@]}"; do cl_start "$node"; done
  for node in "${CL_CASSANDRA_NODES[@]}"; do
    [[ -d $(svc_dir "$node")/data/data/system ]] || together=0
  done
  for node in "${CL_CASSANDRA_NODES[@]}"; do
    cl_start "$node"
    [[ $together == 1 ]] && continue
    cl_wait_cassandra_node "$node" || die "$node did not come up; 'infra.sh cluster down' stops what did start"
  done
  if [[ $together == 1 ]]; then
    for node in "${CL_CASSANDRA_NODES[@]}"; do
      cl_wait_cassandra_node "$node" || die "$node did not come up; 'infra.sh cluster down' stops what did start"
    done
  fi
  cl_wait || die "the cluster is not ready (see above); 'infra.sh cluster status' shows each node"
  for node in "${CL_NODES[@]}"; do
    pid=$(find_pid "$node")
    log "$node: pid $pid, RSS $(rss_of "$pid")"
  done
  log "cluster up in $(elapsed "$t0") s: Cassandra $(cl_endpoints "${CL_CASSANDRA_NODES[@]}") ($CL_DATACENTER)," \
    "Kafka $(cl_endpoints "${CL_KAFKA_NODES[@]}")"
}

# Every node at once. A broker's clean shutdown waits for the controller quorum to
# let it go, which the last broker standing no longer has: it would wait out the
# whole SIGTERM grace (60 s). The brokers get CL_KAFKA_STOP_SECONDS instead (they
# stop in 1-6 s otherwise); one killed then recovers its log at its next start.
CL_KAFKA_STOP_SECONDS=${FERRY_INFRA_CLUSTER_KAFKA_STOP_SECONDS:-10}
cl_down() {
  local node pids=() rc=0 i
  for node in "${CL_NODES[@]}"; do
    if [[ $(kind_of "$node") == kafka ]]; then
      (
        STOP_SECONDS=$CL_KAFKA_STOP_SECONDS
        cl_stop "$node" TERM
      ) &
    else
      cl_stop "$node" TERM &
    fi
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || rc=1; done
  return $rc
}

cl_wipe() {
  cl_down
  rm -rf "$INFRA_DIR/cluster"
  log "cluster: data, configuration and logs removed"
}

cluster_main() {
  local cmd=${1:-help}
  shift || true
  case $cmd in
    up) cl_up ;;
    down)
      if [[ ${1:-} == --wipe ]]; then cl_wipe; else cl_down; fi
      ;;
    status) cl_status || exit $? ;;
    wait) cl_wait ;;
    start)
      cl_check_node "${1:-}"
      cl_start "$1"
      ;;
    stop)
      cl_check_node "${1:-}"
      cl_stop "$1" TERM
      ;;
    kill)
      cl_check_node "${1:-}"
      cl_stop "$1" KILL
      ;;
    freeze)
      cl_check_node "${1:-}"
      cl_signal "$1" STOP
      ;;
    thaw)
      cl_check_node "${1:-}"
      cl_signal "$1" CONT
      ;;
    wipe) cl_wipe ;;
    help | -h | --help) sed -n '2,/^$/p' "$HERE/cluster.sh" | sed -e 's/^# \{0,1\}//' ;;
    *)
      sed -n '2,/^$/p' "$HERE/cluster.sh" | sed -e 's/^# \{0,1\}//' >&2
      exit 64
      ;;
  esac
}
