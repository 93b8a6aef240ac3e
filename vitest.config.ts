import { defineConfig } from 'vitest/config';

// The black-box API tests run twice: on the embedded default, and unchanged on Cassandra and Kafka (started by
// test/infra/infra.sh). The contract project runs the port suites against both backends.

/**
 * API and console test files whose subject is the same whatever stores the requests: the edge's refusals and
 * limits, the OpenAPI document, the SDK's examples, the SDK's own behaviour (packaging, retries,
 * webhook verification), TLS, computed previews, the budget service's agreement across protocols and the SDK's
 * budget calls, and the console's layout. They run once, on the embedded
 * default; what they send through to storage is covered on both backends by the files that are about it
 * (create, send, list, schedules, idempotency, states, delivery and the contract suite).
 */
const BACKEND_AGNOSTIC = [
  'test/api/budget-protocols.test.ts',
  'test/api/input-refusals.test.ts',
  'test/api/openapi-boundaries.test.ts',
  'test/api/openapi-conformance.test.ts',
  'test/api/schedule-preview.test.ts',
  'test/api/schedules-validation.test.ts',
  'test/api/sdk-budgets.test.ts',
  'test/api/sdk-client.test.ts',
  'test/api/sdk-examples.test.ts',
  'test/api/sdk-package.test.ts',
  'test/api/sdk-retries.test.ts',
  'test/api/sdk-webhooks.test.ts',
  'test/api/tls.test.ts',
  'test/api/unknown-routes.test.ts',
  'test/browser/console-failures.test.ts',
  'test/browser/console-layout.test.ts',
  'test/browser/console-shell.test.ts',
];

/**
 * Distributed files that stop, freeze or kill Cassandra, Kafka or whole clusters of Ferry processes: they run in a
 * project of their own (`api-cassandra-alone`), which the suite runs after the others, away from their load: the
 * files that pause processes side by side, then failover alone (test/tools/test-all.sh). On the embedded default
 * they have nothing to run.
 */
const RUN_ALONE = ['test/api/failover.test.ts', 'test/api/stale-owner.test.ts', 'test/api/cancel-notice.test.ts'];

export default defineConfig({
  test: {
    // Much of a test's time is spent waiting on real processes (servers, Cassandra, Kafka, a browser) or on the
    // wall clock (schedules, leases): four files at a time keep two cores busy through those waits. Measured on
    // this 2-core machine: the main run took 541 s with four, about 630 s with three (test/README.md).
    maxWorkers: 4,
    projects: [
      // Test files share their workers' loaded modules (most of a small file's cost was loading the same modules
      // again: the drivers, the adapters, the test support), except where a file needs a registry of its own: the
      // one that replaces a built-in module with a fake, and the files run alone. Workers are per project, so a
      // module reads its project's environment (FERRY_TEST_BACKEND) once, as before.
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: ['test/unit/config-delivery-threads.test.ts'], isolate: false } },
      { test: { name: 'unit-isolated', include: ['test/unit/config-delivery-threads.test.ts'] } },
      { test: { name: 'contract', include: ['test/contract/**/*.test.ts'], isolate: false, testTimeout: 60_000, hookTimeout: 60_000 } },
      {
        test: {
          name: 'api',
          isolate: false,
          include: ['test/api/**/*.test.ts'],
          exclude: RUN_ALONE,
          globalSetup: ['test/support/shared-ferry.setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'api-cassandra',
          isolate: false,
          include: ['test/api/**/*.test.ts'],
          exclude: [...BACKEND_AGNOSTIC, ...RUN_ALONE],
          env: { FERRY_TEST_BACKEND: 'cassandra' },
          setupFiles: ['test/support/drop-deployments.setup.ts'],
          globalSetup: ['test/support/shared-ferry.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'api-cassandra-alone',
          include: RUN_ALONE,
          env: { FERRY_TEST_BACKEND: 'cassandra' },
          setupFiles: ['test/support/drop-deployments.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      // Ferry on the three-node Cassandra and Kafka clusters of `infra.sh cluster` (test/infra/README.md): run last by
      // test-all.sh, on its own (test-cluster.sh); its files run only with FERRY_TEST_TOPOLOGY=cluster.
      {
        test: {
          name: 'api-cluster',
          include: ['test/cluster/**/*.test.ts'],
          // One file at a time: each stops and starts nodes of the one cluster they share (`cluster up` in one file's
          // set-up would start a node another file has just killed).
          fileParallelism: false,
          env: { FERRY_TEST_BACKEND: 'cassandra' },
          setupFiles: ['test/support/drop-deployments.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      // The web console in a real chromium (test/infra/browser.sh), against both backends like the API tests.
      {
        test: {
          name: 'browser',
          isolate: false,
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/support/shared-ferry.setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser-cassandra',
          isolate: false,
          include: ['test/browser/**/*.test.ts'],
          exclude: BACKEND_AGNOSTIC,
          env: { FERRY_TEST_BACKEND: 'cassandra' },
          setupFiles: ['test/support/drop-deployments.setup.ts'],
          globalSetup: ['test/support/shared-ferry.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
