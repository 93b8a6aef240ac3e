import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Imports of these folders of `src/`, from any depth. */
const folders = (...names) => names.map((name) => `**/${name}/**`);

const DRIVERS = {
  group: ['better-sqlite3', 'cassandra-driver', 'kafkajs', '@connectrpc/*', '@bufbuild/*', 'undici'],
  message: 'Only adapters and the edge know driver and protocol types.',
};

/** Which layers a folder may not import; each override replaces the rule for its files. */
const layer = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/gen/**', 'sdk/src/gen/**', 'sdk/src/schema.d.ts', 'sdk/dist/**', 'test/.infra/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': 'off',
    },
  },
  // The domain is the innermost layer: it states the rules, and every other layer depends on it.
  layer(
    ['src/domain/**/*.ts'],
    [
      { group: folders('adapters', 'app', 'edge', 'workers', 'runtime', 'ports', 'gen'), message: 'The domain depends on no other layer.' },
      DRIVERS,
    ],
  ),
  // The ports and the application use cases know nothing of drivers, generated code or protocols.
  layer(
    ['src/ports/**/*.ts', 'src/app/**/*.ts'],
    [{ group: folders('adapters', 'edge', 'gen', 'runtime'), message: 'Ports and use cases depend on no outer layer.' }, DRIVERS],
  ),
  // Workers run on ports: the composition root hands them adapters, and their logging, as plain objects.
  layer(
    ['src/workers/**/*.ts'],
    [{ group: folders('adapters', 'runtime'), message: 'Workers reach storage and the network through ports, given by the runtime.' }, DRIVERS],
  ),
  layer(['src/edge/**/*.ts'], [{ group: folders('adapters', 'runtime'), message: 'The edge reaches storage through the use cases, given by the runtime.' }]),
  // The web console runs in the browser and knows Ferry only through its public API, by the published SDK's client.
  layer(
    ['src/console/**/*.ts', 'src/console/**/*.tsx'],
    [
      {
        group: [...folders('adapters', 'app', 'domain', 'edge', 'ports', 'runtime', 'workers', 'gen', 'config', 'cli'), '**/sdk/src/webhooks/**', '**/sdk/src/proto/**'],
        message: 'The console reaches Ferry only through the public API (sdk/src/client).',
      },
      DRIVERS,
    ],
  ),
  // Adapters implement ports; what uses them is wired by the runtime.
  layer(['src/adapters/**/*.ts'], [{ group: folders('app', 'edge', 'workers', 'runtime'), message: 'Adapters implement ports and know nothing of their users.' }]),
);
