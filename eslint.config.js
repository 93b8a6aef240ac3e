import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/gen/**', 'sdk/src/schema.d.ts', 'sdk/dist/**', 'test/.infra/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': 'off',
    },
  },
  {
    // The domain and the ports know nothing of drivers, generated code or protocols.
    files: ['src/domain/**/*.ts', 'src/ports/**/*.ts', 'src/app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/adapters/**', '**/edge/**', '**/gen/**', '**/runtime/**'], message: 'The domain depends on no outer layer.' },
            { group: ['better-sqlite3', 'cassandra-driver', 'kafkajs', '@connectrpc/*', '@bufbuild/*', 'undici'], message: 'The domain knows no driver or protocol types.' },
          ],
        },
      ],
    },
  },
);
