#!/usr/bin/env bash
# Single-node Apache Cassandra and Apache Kafka (KRaft) on loopback for Ferry's
# integration tests, run straight from their jars on Maven Central: no Docker,
# no release tarballs. See test/infra/README.md.
#
#   infra.sh up                        start both (if needed) and wait until both answer
#   infra.sh down [--wipe]             stop both (SIGTERM, SIGKILL after a deadline)
#   infra.sh status                    one line per service; exit 0 only if both run
#   infra.sh start|stop|kill|wait cassandra|kafka
#   infra.sh wipe [cassandra|kafka]    stop, then delete data and logs (jars stay)
#   infra.sh fetch                     only resolve the jars (e.g. to warm a CI cache)
#   infra.sh nodetool <args>           Cassandra's nodetool (needs FERRY_INFRA_CASSANDRA_JMX_PORT)
#   infra.sh cluster <command>         the three-node Cassandra and three-broker Kafka
#                                      clusters beside the single pair (test/infra/cluster.sh;
#                                      `infra.sh cluster help`)
#
# All runtime state lives under $FERRY_INFRA_DIR (default <repo>/test/.infra):
#   lib/<service>/        jars copied from the local Maven repository (+ .complete marker)
#   <service>/conf/       configuration rendered from test/infra/conf/ at each start
#   <service>/data/       data; survives stop/start/kill, removed by wipe
#   <service>/<service>.log, .log.prev, .pid
#
# Environment (defaults in brackets). The FERRY_INFRA_ prefix keeps these apart
# from the FERRY_CASSANDRA_* / FERRY_KAFKA_* settings of the service itself.
#   FERRY_INFRA_DIR [<repo>/test/.infra]
#   FERRY_INFRA_WAIT_SECONDS [180]          FERRY_INFRA_STOP_SECONDS [60]
#   FERRY_INFRA_CASSANDRA_PORT [19042]      FERRY_INFRA_CASSANDRA_STORAGE_PORT [17000]
#   FERRY_INFRA_CASSANDRA_JMX_PORT [none]
#   FERRY_INFRA_KAFKA_PORT [19092]          FERRY_INFRA_KAFKA_CONTROLLER_PORT [19093]
#   FERRY_INFRA_CASSANDRA_VERSION [5.0.9]   FERRY_INFRA_KAFKA_VERSION [4.3.1]
#   FERRY_INFRA_CASSANDRA_HEAP [2G]         FERRY_INFRA_KAFKA_HEAP [512M]
#   JAVA_HOME [java on PATH]
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

INFRA_DIR=${FERRY_INFRA_DIR:-$REPO/test/.infra}
mkdir -p "$INFRA_DIR"
INFRA_DIR=$(cd "$INFRA_DIR" && pwd) # absolute: it ends up in file:// URLs and JVM flags

CASSANDRA_VERSION=${FERRY_INFRA_CASSANDRA_VERSION:-5.0.9}
KAFKA_VERSION=${FERRY_INFRA_KAFKA_VERSION:-4.3.1}

CASSANDRA_PORT=${FERRY_INFRA_CASSANDRA_PORT:-19042}                 # CQL native protocol
CASSANDRA_STORAGE_PORT=${FERRY_INFRA_CASSANDRA_STORAGE_PORT:-17000} # gossip/internode (unused by clients)
CASSANDRA_JMX_PORT=${FERRY_INFRA_CASSANDRA_JMX_PORT:-}              # empty: no JMX at all
KAFKA_PORT=${FERRY_INFRA_KAFKA_PORT:-19092}                         # broker (PLAINTEXT)
KAFKA_CONTROLLER_PORT=${FERRY_INFRA_KAFKA_CONTROLLER_PORT:-19093}   # KRaft controller

CASSANDRA_HEAP=${FERRY_INFRA_CASSANDRA_HEAP:-2G}
KAFKA_HEAP=${FERRY_INFRA_KAFKA_HEAP:-512M}

WAIT_SECONDS=${FERRY_INFRA_WAIT_SECONDS:-180} # readiness deadline per service
STOP_SECONDS=${FERRY_INFRA_STOP_SECONDS:-60}  # SIGTERM grace before SIGKILL

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi
SERVICES=(cassandra kafka)

# ---------------------------------------------------------------- helpers ---

log() { printf '%s\n' "$*"; }
die() { printf 'infra.sh: %s\n' "$*" >&2; exit 1; }

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# A process is named by its service (cassandra, kafka: the single pair) or by a
# cluster node (cassandra-1, kafka-3, ...: test/infra/cluster.sh); its kind is
# the service it runs, which picks the jars and the version.
kind_of() { echo "${1%%-*}"; }
version_of() { case $(kind_of "$1") in cassandra) echo "$CASSANDRA_VERSION" ;; kafka) echo "$KAFKA_VERSION" ;; esac; }
port_of() { case $1 in cassandra) echo "$CASSANDRA_PORT" ;; kafka) echo "$KAFKA_PORT" ;; esac; }
svc_dir() { case $1 in cassandra | kafka) echo "$INFRA_DIR/$1" ;; *) echo "$INFRA_DIR/cluster/$1" ;; esac; }
lib_dir() { echo "$INFRA_DIR/lib/$1"; }
pid_file() { echo "$(svc_dir "$1")/$1.pid"; }
log_file() { echo "$(svc_dir "$1")/$1.log"; }

check_service() {
  case ${1:-} in
    cassandra | kafka) ;;
    *) die "expected a service name (cassandra or kafka), got '${1:-}'" ;;
  esac
}

# Every JVM started here carries this flag. It tells our process apart from an
# unrelated one that got the same pid after ours died, and it lets `stop` find
# the process even when the pid file was lost. The infra dir is part of it so
# two checkouts (or two FERRY_INFRA_DIRs) never touch each other's processes.
marker() { echo "-Dferry.infra=$1@$INFRA_DIR"; }

has_marker() { # pid service
  local cmdline
  cmdline=$(tr '\0' '\n' 2>/dev/null <"/proc/$1/cmdline") || return 1
  grep -qxF -- "$(marker "$2")" <<<"$cmdline"
}

# Whether the process still holds anything (ports, files). Two subtleties:
# right after SIGKILL the main thread shows as a zombie while the JVM's other
# threads are still being torn down (and the ports still bound); and a JVM
# whose parent does not reap it stays a zombie forever although it holds
# nothing. So a zombie counts as gone only once it is the last thread left.
is_alive() { # pid
  local stat tasks
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]] && return 0
  tasks=(/proc/"$1"/task/*)
  [[ -e ${tasks[0]} && ${#tasks[@]} -gt 1 ]]
}

# Prints the pid of the running service, or nothing.
find_pid() { # service
  local pid="" file p
  file=$(pid_file "$1")
  [[ -f $file ]] && pid=$(<"$file")
  if [[ -n $pid ]] && is_alive "$pid" && has_marker "$pid" "$1"; then
    echo "$pid"
    return
  fi
  # Pid file missing or stale: look for the marker among all processes
  # (one grep over /proc/*/cmdline; candidates are then checked exactly).
  for p in $(grep -lsF -- "$(marker "$1")" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); do
    if has_marker "$p" "$1" && is_alive "$p"; then
      echo "$p" >"$file"
      echo "$p"
      return
    fi
  done
  rm -f "$file"
}

port_open() { # port [address]
  (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

rss_of() { # pid -> "1434 MiB"
  awk '/^VmRSS:/ { printf "%.0f MiB", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo "?"
}

show_log_tail() { # service
  local file
  file=$(log_file "$1")
  if [[ -f $file ]]; then
    printf '%s: last lines of %s:\n' "$1" "$file" >&2
    tail -n 40 "$file" | cut -c1-400 | sed 's/^/  | /' >&2
  fi
}

# Fills the @NAME@ placeholders of a template.
render() { # template target name=value...
  local template=$1 target=$2 expr=() kv
  shift 2
  for kv in "$@"; do expr+=(-e "s#@${kv%%=*}@#${kv#*=}#g"); done
  mkdir -p "$(dirname "$target")"
  sed "${expr[@]}" "$template" >"$target.tmp"
  mv "$target.tmp" "$target"
}

# ------------------------------------------------------------------- jars ---

# Copies the runtime classpath of a service into lib/<service>. Maven's local
# repository (~/.m2/repository) caches the downloads; the .complete marker
# (versions + pom checksum) skips even the Maven start-up when the copy is
# already there. The copy goes to a temporary directory first, so an
# interrupted download never looks complete.
ensure_libs() { # service
  local svc=$1 lib want tmp pom
  lib=$(lib_dir "$svc")
  pom="$HERE/maven/$svc/pom.xml"
  want="$svc $(version_of "$svc") pom:$(sha256sum "$pom" | cut -c1-16)"
  [[ -f $lib/.complete && $(<"$lib/.complete") == "$want" ]] && return 0

  command -v mvn >/dev/null || die "mvn (Maven 3) is needed once to fetch the $svc jars"
  mkdir -p "$INFRA_DIR/lib"
  # Two `up`s at once (two terminals, parallel test runs) must not both copy.
  exec 9>"$INFRA_DIR/lib/.$svc.lock"
  flock -w 900 9 || die "timed out waiting for another fetch of the $svc jars"
  if [[ -f $lib/.complete && $(<"$lib/.complete") == "$want" ]]; then
    exec 9>&-
    return 0
  fi

  log "$svc: resolving $svc $(version_of "$svc") jars through Maven (downloads only the first time)..."
  local t0
  t0=$(now)
  tmp=$(mktemp -d "$INFRA_DIR/lib/.$svc.XXXXXX")
  # Maven's output is only shown when it fails (even -q -B leaves terminal
  # escape codes behind).
  if ! mvn -q -B -Dstyle.color=never -f "$pom" \
    "-D$svc.version=$(version_of "$svc")" \
    dependency:copy-dependencies "-DoutputDirectory=$tmp" >"$tmp.mvn.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$tmp.mvn.log" >&2
    rm -rf "$tmp" "$tmp.mvn.log"
    die "$svc: Maven could not resolve the jars (is Maven Central reachable?)"
  fi
  rm -f "$tmp.mvn.log"
  echo "$want" >"$tmp/.complete"
  rm -rf "$lib"
  mv "$tmp" "$lib"
  exec 9>&-
  log "$svc: $(find "$lib" -name '*.jar' | wc -l) jars in $lib ($(elapsed "$t0") s)"
}

# ------------------------------------------------------------ cassandra -----

# Prints the flags of conf/cassandra-jvm17.options, one per line. The file
# keeps Cassandra's spelling "--add-opens module/pkg=ALL-UNNAMED"; as a single
# argv entry the JVM only accepts "--add-opens=module/pkg=ALL-UNNAMED".
cassandra_jvm17_opts() {
  local line
  while IFS= read -r line; do
    [[ $line == --* ]] && line=${line/ /=}
    printf '%s\n' "$line"
  done < <(grep -E '^-' "$HERE/conf/cassandra-jvm17.options")
}

# Renders conf/cassandra.yaml for one node: the ports and data directory, and
# the placeholders that tell the single node from a cluster node.
render_cassandra_conf() { # name native-port storage-port name=value... (CLUSTER_NAME ADDRESS SEEDS SNITCH HINTED_HANDOFF)
  local name=$1 native=$2 storage=$3 dir
  shift 3
  dir=$(svc_dir "$name")
  mkdir -p "$dir/data" "$dir/triggers"
  render "$HERE/conf/cassandra.yaml" "$dir/conf/cassandra.yaml" \
    "NATIVE_PORT=$native" \
    "STORAGE_PORT=$storage" \
    "SSL_STORAGE_PORT=$((storage + 1))" \
    "DATA_DIR=$dir/data" \
    "$@"
  cp "$HERE/conf/cassandra-logback.xml" "$dir/conf/logback.xml"
}

launch_cassandra() {
  render_cassandra_conf cassandra "$CASSANDRA_PORT" "$CASSANDRA_STORAGE_PORT" \
    CLUSTER_NAME=ferry-test ADDRESS=127.0.0.1 "SEEDS=127.0.0.1:$CASSANDRA_STORAGE_PORT" \
    SNITCH=SimpleSnitch HINTED_HANDOFF=false
  local extra=(-Dcassandra.initial_token=0)
  if [[ -n $CASSANDRA_JMX_PORT ]]; then
    # JMX on loopback only (for nodetool), and only when asked for.
    extra+=("-Dcassandra.jmx.local.port=$CASSANDRA_JMX_PORT")
  fi
  start_cassandra_jvm cassandra "$CASSANDRA_HEAP" "${extra[@]}"
}

# Starts the Cassandra daemon of a node whose configuration is rendered.
start_cassandra_jvm() { # name heap extra-java-args...
  local name=$1 heap=$2 dir lib data conf agent
  shift 2
  dir=$(svc_dir "$name")
  lib=$(lib_dir cassandra)
  data="$dir/data"
  conf="$dir/conf"

  # Cassandra measures object sizes with the jamm agent; without it the
  # daemon refuses to start.
  agent=$(find "$lib" -maxdepth 1 -name 'jamm-*.jar' | head -n 1)
  [[ -n $agent ]] || die "cassandra: no jamm jar in $lib"

  local jvm_opts=()
  mapfile -t jvm_opts < <(cassandra_jvm17_opts)

  # The rest follows Cassandra's own jvm-server.options / cassandra-env.sh,
  # minus what does not suit a shared test machine: no GC log, no heap dump
  # (a 1 GiB file in the working directory), no AlwaysPreTouch (keeps RSS to
  # what is used).
  start_jvm "$name" \
    "-Xms$heap" "-Xmx$heap" \
    -XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1 \
    -XX:+ExitOnOutOfMemoryError -XX:+PerfDisableSharedMem \
    -ea -da:net.openhft... \
    -Djava.net.preferIPv4Stack=true \
    "${jvm_opts[@]}" \
    "-javaagent:$agent" \
    -Dcassandra-foreground=yes \
    "-Dcassandra.config=file://$conf/cassandra.yaml" \
    "-Dcassandra.storagedir=$data" \
    "-Dcassandra.logdir=$dir" \
    "-Dcassandra.triggers_dir=$dir/triggers" \
    "-Dlogback.configurationFile=file://$conf/logback.xml" \
    -Dcassandra.skip_wait_for_gossip_to_settle=0 \
    "$@" \
    -cp "$lib/*" org.apache.cassandra.service.CassandraDaemon
}
# Notes on the flags above:
#  -Dcassandra-foreground=yes  otherwise the daemon closes stdout/stderr, and
#                              with them our log file.
#  -Dcassandra.skip_wait_for_gossip_to_settle=0
#                              one node has nobody to gossip with; skips a
#                              fixed wait of several seconds at start-up (a
#                              cluster node learns the ring from its seeds
#                              before it serves anyway).
#  -Dcassandra.initial_token=T with num_tokens: 1, the single token is fixed
#                              instead of computed (given per node).

# nodetool talks JMX, so it only works when the node was started with
# FERRY_INFRA_CASSANDRA_JMX_PORT set. It needs the same JPMS flags as the daemon.
nodetool() { # args...
  [[ -n $CASSANDRA_JMX_PORT ]] || die "nodetool needs FERRY_INFRA_CASSANDRA_JMX_PORT (set it for 'start' too)"
  local lib jvm_opts=()
  lib=$(lib_dir cassandra)
  mapfile -t jvm_opts < <(cassandra_jvm17_opts)
  "$JAVA" "${jvm_opts[@]}" \
    "-Dlogback.configurationFile=file://$HERE/conf/cassandra-logback.xml" \
    "-Duser.home=$(svc_dir cassandra)" \
    -cp "$lib/*" org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p "$CASSANDRA_JMX_PORT" "$@"
}

# --------------------------------------------------------------- kafka ------

# Renders conf/server.properties for one broker.
render_kafka_conf() { # name name=value... (NODE_ID ADDRESS BROKER_PORT CONTROLLER_PORT VOTERS REPLICATION MIN_ISR)
  local name=$1 dir
  shift
  dir=$(svc_dir "$name")
  mkdir -p "$dir/data"
  render "$HERE/conf/kafka-server.properties" "$dir/conf/server.properties" "DATA_DIR=$dir/data" "$@"
  cp "$HERE/conf/kafka-log4j2.xml" "$dir/conf/log4j2.xml"
}

# A new KRaft cluster id (every broker of one cluster is formatted with the same).
kafka_random_id() {
  "$JAVA" -cp "$(lib_dir kafka)/*" "-Dlog4j2.configurationFile=file://$HERE/conf/kafka-log4j2.xml" kafka.tools.StorageTool random-uuid
}

# KRaft storage must be formatted exactly once, with a cluster id; doing it
# again would fail (or, forced, lose the topics). meta.properties is what
# `format` writes, so its presence means "already formatted".
format_kafka() { # name cluster-id-command...
  local name=$1 dir cluster_id
  shift
  dir=$(svc_dir "$name")
  [[ -f $dir/data/meta.properties ]] && return 0
  cluster_id=$("$@")
  "$JAVA" -cp "$(lib_dir kafka)/*" "-Dlog4j2.configurationFile=file://$dir/conf/log4j2.xml" kafka.tools.StorageTool format \
    -t "$cluster_id" -c "$dir/conf/server.properties" >>"$(log_file "$name")" 2>&1 ||
    {
      show_log_tail "$name"
      die "$name: formatting $dir/data failed"
    }
  log "$name: formatted $dir/data (cluster id $cluster_id)"
}

launch_kafka() {
  render_kafka_conf kafka NODE_ID=1 ADDRESS=127.0.0.1 \
    "BROKER_PORT=$KAFKA_PORT" "CONTROLLER_PORT=$KAFKA_CONTROLLER_PORT" \
    "VOTERS=1@127.0.0.1:$KAFKA_CONTROLLER_PORT" REPLICATION=1 MIN_ISR=1
  format_kafka kafka kafka_random_id
  start_kafka_jvm kafka "$KAFKA_HEAP"
}

# Starts the broker of a node whose configuration is rendered and storage formatted.
start_kafka_jvm() { # name heap
  local name=$1 heap=$2 dir
  dir=$(svc_dir "$name")
  # GC flags are those of Kafka's kafka-run-class.sh (KAFKA_JVM_PERFORMANCE_OPTS).
  start_jvm "$name" \
    "-Xms$heap" "-Xmx$heap" \
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError \
    -Djava.awt.headless=true \
    "-Dlog4j2.configurationFile=file://$dir/conf/log4j2.xml" \
    -cp "$(lib_dir kafka)/*" kafka.Kafka "$dir/conf/server.properties"
}

# ------------------------------------------------------------ lifecycle -----

# Starts a JVM in the background, detached from this script: setsid gives it
# its own session (no SIGHUP or Ctrl-C from the terminal that ran `up`), nohup
# ignores SIGHUP anyway, and stdin/stdout/stderr are not inherited, so a
# caller that reads our output (npm, a test's child_process) is not held open
# until the JVM exits.
start_jvm() { # service java-args...
  local svc=$1 file pid
  shift
  file=$(log_file "$svc")
  {
    echo "=== $(date -Is) starting $svc $(version_of "$svc") ==="
  } >>"$file"
  setsid nohup "$JAVA" "$(marker "$svc")" "$@" >>"$file" 2>&1 </dev/null &
  pid=$!
  # Without job control the child is not a process-group leader, so setsid
  # does not fork and $! is the JVM's own pid; find_pid double-checks.
  echo "$pid" >"$(pid_file "$svc")"
}

start_service() { # service
  local svc=$1 pid port dir
  pid=$(find_pid "$svc")
  if [[ -n $pid ]]; then
    log "$svc: already running (pid $pid)"
    return 0
  fi
  ensure_libs "$svc"
  dir=$(svc_dir "$svc")
  mkdir -p "$dir"

  # A port held by something else would make the JVM fail after its slow
  # start-up with a bind error; say so at once instead.
  for port in $(port_of "$svc") $([[ $svc == kafka ]] && echo "$KAFKA_CONTROLLER_PORT" || echo "$CASSANDRA_STORAGE_PORT"); do
    port_open "$port" && die "$svc: port $port is already in use by another process"
  done

  # Keep the previous run's log next to the new one (useful after a kill test).
  [[ -f $(log_file "$svc") ]] && mv -f "$(log_file "$svc")" "$(log_file "$svc").prev"

  "launch_$svc"
  log "$svc: started pid $(<"$(pid_file "$svc")") (log: $(log_file "$svc"))"
}

# Like find_pid, but patient with a process just started: on a busy machine
# the launcher (setsid, nohup) may not have become the JVM yet, and its
# command line lacks the marker for a moment.
started_pid() { # service
  local pid
  pid=$(find_pid "$1")
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [[ -n $pid ]] && break
    sleep 0.5
    pid=$(find_pid "$1")
  done
  echo "$pid"
}

wait_service() { # service
  local svc=$1 pid t0 out rc
  t0=$(now)
  pid=$(started_pid "$svc")
  if [[ -z $pid ]]; then
    show_log_tail "$svc"
    die "$svc: not running"
  fi
  rc=0
  out=$(node "$HERE/probe.mjs" "$svc" "127.0.0.1:$(port_of "$svc")" "$pid" "$WAIT_SECONDS" 2>&1) || rc=$?
  if [[ $rc -ne 0 ]]; then
    printf '%s\n' "$out" >&2
    show_log_tail "$svc"
    return 1
  fi
  log "$svc: ready after $(elapsed "$t0") s of waiting ($out)"
}

# SIGTERM lets both shut down cleanly: Cassandra drains (flushes memtables, so
# the next start replays no commit log), Kafka does a controlled shutdown and
# writes its recovery checkpoints. SIGKILL only after STOP_SECONDS.
stop_service() { # service [TERM|KILL]
  local svc=$1 signal=${2:-TERM} pid t0 limit how
  pid=$(find_pid "$svc")
  if [[ -z $pid ]]; then
    log "$svc: not running"
    return 0
  fi
  t0=$(now)
  how=$([[ $signal == KILL ]] && echo killed || echo stopped)
  kill "-$signal" "$pid" 2>/dev/null || true
  limit=$((SECONDS + STOP_SECONDS))
  while is_alive "$pid"; do
    if [[ $signal != KILL && $SECONDS -ge $limit ]]; then
      log "$svc: still running ${STOP_SECONDS}s after SIGTERM, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      signal=KILL
      how="killed after the SIGTERM deadline"
    fi
    sleep 0.1
  done
  rm -f "$(pid_file "$svc")"
  log "$svc: $how pid $pid ($(elapsed "$t0") s)"
}

status_service() { # service; returns 0 when running
  local svc=$1 pid port state data_size="" started
  pid=$(find_pid "$svc")
  port=$(port_of "$svc")
  [[ -d $(svc_dir "$svc")/data ]] && data_size=", data $(du -sh "$(svc_dir "$svc")/data" 2>/dev/null | cut -f1)"
  if [[ -n $pid ]]; then
    started=$(ps -o etime= -p "$pid" | tr -d ' ')
    if port_open "$port"; then state="port $port open"; else state="port $port not open yet"; fi
    printf '%-9s %-6s running  pid %s, up %s, RSS %s, %s%s\n' "$svc" "$(version_of "$svc")" "$pid" "$started" "$(rss_of "$pid")" "$state" "$data_size"
    return 0
  fi
  printf '%-9s %-6s stopped%s\n' "$svc" "$(version_of "$svc")" "$data_size"
  return 1
}

wipe_service() { # service
  stop_service "$1"
  rm -rf "$(svc_dir "$1")"
  log "$1: data, configuration and logs removed"
}

# Runs "fn service" for each service in parallel and fails if any failed.
in_parallel() { # fn
  local fn=$1 svc pids=() rc=0 i
  for svc in "${SERVICES[@]}"; do
    "$fn" "$svc" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || rc=1
  done
  return $rc
}

up_one() { # service: start + wait, report the time from launch to ready
  local svc=$1 t0
  t0=$(now)
  start_service "$svc" && wait_service "$svc" &&
    log "$svc: up in $(elapsed "$t0") s (pid $(find_pid "$svc"), RSS $(rss_of "$(find_pid "$svc")"))"
}

# ------------------------------------------------------------------ main ----

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

cmd=${1:-help}
shift || true
case $cmd in
  up)
    t0=$(now)
    # The readiness probe talks to both with the project's own drivers.
    for pkg in cassandra-driver kafkajs; do
      [[ -d $REPO/node_modules/$pkg ]] || die "the readiness probe needs the project's packages ($pkg is missing): run npm install first"
    done
    # Jars first and one service at a time: Maven's local repository is not
    # safe for two resolutions writing the same artifacts at once.
    for svc in "${SERVICES[@]}"; do ensure_libs "$svc"; done
    if in_parallel up_one; then
      log "infra up in $(elapsed "$t0") s: Cassandra 127.0.0.1:$CASSANDRA_PORT, Kafka 127.0.0.1:$KAFKA_PORT"
    else
      die "infra did not come up (see above); 'bash test/infra/infra.sh down' stops what did start"
    fi
    ;;
  down)
    in_parallel stop_service
    if [[ ${1:-} == --wipe ]]; then
      for svc in "${SERVICES[@]}"; do wipe_service "$svc"; done
    fi
    ;;
  status)
    rc=0
    for svc in "${SERVICES[@]}"; do status_service "$svc" || rc=3; done
    exit $rc
    ;;
  start)
    check_service "${1:-}"
    start_service "$1"
    ;;
  stop)
    check_service "${1:-}"
    stop_service "$1" TERM
    ;;
  kill)
    check_service "${1:-}"
    stop_service "$1" KILL
    ;;
  wait)
    check_service "${1:-}"
    wait_service "$1"
    ;;
  wipe)
    if [[ -n ${1:-} ]]; then
      check_service "$1"
      wipe_service "$1"
    else
      for svc in "${SERVICES[@]}"; do wipe_service "$svc"; done
    fi
    ;;
  fetch)
    for svc in "${SERVICES[@]}"; do ensure_libs "$svc"; done
    ;;
  nodetool)
    nodetool "$@"
    ;;
  cluster)
    # shellcheck source=test/infra/cluster.sh
    source "$HERE/cluster.sh"
    cluster_main "$@"
    ;;
  help | -h | --help)
    usage
    ;;
  *)
    usage >&2
    exit 64
    ;;
esac
