import { keyJson } from './admin-output.js';
import type { Command } from './args.js';
import { printJson } from './output.js';
import { withAdmin } from './storage-access.js';

const keyCreate: Command = {
  words: ['key', 'create'],
  summary: 'issue another API key for a project',
  details:
    'For rotating keys without downtime: issue a new key, move clients to it, revoke the old one. Prints the key, ' +
    "shown this once, and its key ID, which 'key list' shows and 'key revoke' accepts.",
  options: [{ name: 'project', kind: 'string', value: 'PROJECT_ID', help: 'the project (prj_…)', required: true }],
  run: (args) =>
    withAdmin(async ({ admin }) => {
      const projectId = args.required('project');
      const key = await admin.createKey(projectId);
      printJson({ project_id: projectId, key_id: key.keyId, api_key: key.token });
    }),
};

const keyList: Command = {
  words: ['key', 'list'],
  summary: "list a project's API keys: IDs, creation, last use, revocation",
  details:
    'Never prints a key or its hash. The last use is written at most once a minute per key and server, so it is ' +
    'up to a minute behind (null: not used since it was issued).',
  options: [{ name: 'project', kind: 'string', value: 'PROJECT_ID', help: 'the project (prj_…)', required: true }],
  run: (args) => withAdmin(async ({ admin }) => printJson((await admin.listKeys(args.required('project'))).map(keyJson))),
};

const keyRevoke: Command = {
  words: ['key', 'revoke'],
  summary: 'revoke an API key',
  details: 'Servers stop accepting it within FERRY_AUTH_CACHE_MS.',
  options: [{ name: 'key', kind: 'string', value: 'KEY', help: 'the key ID, or the API key itself (fry_…)', required: true }],
  run: (args) => withAdmin(async ({ admin }) => printJson({ revoked_key_id: await admin.revokeKey(args.required('key')) })),
};

export const KEY_COMMANDS: readonly Command[] = [keyCreate, keyList, keyRevoke];
