/**
 * Imported first by the distributed benchmarks: `test/support/deployment.ts` reads the backend choice when it is
 * loaded, so it must be set before anything imports it. Every data directory then stands for a Cassandra + Kafka
 * deployment of its own (keyspace, work topic and consumer group), started by `bash test/infra/infra.sh up`.
 */
process.env.FERRY_TEST_BACKEND = 'cassandra';
