import { defineConfig } from 'vitest/config';

// The black-box API tests run twice: on the embedded default, and unchanged on Cassandra and Kafka (started by
// test/infra/infra.sh). The contract project runs the port suites against both backends.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { name: 'contract', include: ['test/contract/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      { test: { name: 'api', include: ['test/api/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      {
        test: {
          name: 'api-cassandra',
          include: ['test/api/**/*.test.ts'],
          env: { FERRY_TEST_BACKEND: 'cassandra' },
          setupFiles: ['test/support/drop-deployments.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      // The web console in a real chromium (test/infra/browser.sh), against both backends like the API tests.
      { test: { name: 'browser', include: ['test/browser/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      {
        test: {
          name: 'browser-cassandra',
          include: ['test/browser/**/*.test.ts'],
          env: { FERRY_TEST_BACKEND: 'cassandra' },
          setupFiles: ['test/support/drop-deployments.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
