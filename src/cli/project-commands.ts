import { PROJECT_DEFAULTS } from '../app/project-admin.js';
import type { ProjectChanges } from '../domain/project.js';
import { PROJECT_SETTING_RANGES, parseCaptureResponseBodies, type ProjectSettingName } from '../domain/validation/index.js';
import { keyJson, projectJson, usageJson } from './admin-output.js';
import { UsageError, type Command, type OptionSpec, type ParsedArgs } from './args.js';
import { printJson } from './output.js';
import { withAdmin } from './storage-access.js';

const PROJECT: OptionSpec = { name: 'project', kind: 'string', value: 'PROJECT_ID', help: 'the project (prj_…)', required: true };

/** The settings as options, each with the range the domain allows; `defaults` adds the value a new project gets. */
function settingOptions(defaults: boolean): OptionSpec[] {
  const option = (name: string, setting: ProjectSettingName, help: string): OptionSpec => {
    const { min, max } = PROJECT_SETTING_RANGES[setting];
    return { name, kind: 'count', value: 'N', help: defaults ? `${help} (default ${PROJECT_DEFAULTS[setting]})` : help, min, max };
  };
  return [
    option('monthly-allowance', 'monthlyAllowance', 'requests accepted a UTC calendar month'),
    option('schedule-allowance', 'scheduleAllowance', 'schedules at once, active or paused'),
    option('retention-days', 'retentionDays', 'days finished requests are kept'),
    {
      name: 'capture-response-bodies',
      kind: 'string',
      value: 'on|off',
      help: `keep the first 2 KiB of each response body on its attempt${defaults ? ' (default on)' : ''}; headers are kept either way`,
    },
  ];
}

function settingsOf(args: ParsedArgs): ProjectChanges {
  const given = {
    name: args.string('name'),
    monthlyAllowance: args.count('monthly-allowance'),
    scheduleAllowance: args.count('schedule-allowance'),
    retentionDays: args.count('retention-days'),
    captureResponseBodies: captureOf(args.string('capture-response-bodies')),
  };
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as ProjectChanges;
}

function captureOf(text: string | undefined): boolean | undefined {
  return text === undefined ? undefined : parseCaptureResponseBodies(text);
}

const projectCreate: Command = {
  words: ['project', 'create'],
  summary: 'create a project and print its first API key',
  details:
    'Prints the project, its first API key (with the key ID that names it later) and its signing secret as JSON; ' +
    'the secrets are shown this once.',
  options: [{ name: 'name', kind: 'string', value: 'NAME', help: "the project's name, 1 to 120 bytes", required: true }, ...settingOptions(true)],
  run: (args) =>
    withAdmin(async ({ admin }) => {
      const { project, apiKey, signingSecret } = await admin.createProject({ ...settingsOf(args), name: args.required('name') });
      printJson({ ...projectJson(project), key_id: apiKey.keyId, api_key: apiKey.token, signing_secret: signingSecret });
    }),
};

const projectList: Command = {
  words: ['project', 'list'],
  summary: 'list every project with its settings',
  details: 'Prints a JSON array, oldest project first.',
  options: [],
  run: () => withAdmin(async ({ admin }) => printJson((await admin.listProjects()).map(projectJson))),
};

const projectShow: Command = {
  words: ['project', 'show'],
  summary: "print a project's settings, this month's usage and its keys",
  details:
    'Usage is what storage counts: running servers reserve the monthly allowance in blocks ahead of use, so while ' +
    "they run it may include up to a block per server not used yet (GET /usage, asked of the server, leaves out that server's own).",
  options: [PROJECT],
  run: (args) =>
    withAdmin(async ({ admin, usage }) => {
      const project = await admin.project(args.required('project'));
      const [report, keys] = await Promise.all([usage.of(project), admin.listKeys(project.id)]);
      printJson({ ...projectJson(project), usage: usageJson(report), api_keys: keys.map(keyJson) });
    }),
};

const projectUpdate: Command = {
  words: ['project', 'update'],
  summary: "change a project's name, allowances, retention or response body capture",
  details:
    'Prints the project as changed. Running servers apply the change within FERRY_AUTH_CACHE_MS; a lower allowance ' +
    'refuses new work from then on and leaves what was counted as it is. Delivering processes apply a change of ' +
    'response body capture within 5 s.',
  options: [PROJECT, { name: 'name', kind: 'string', value: 'NAME', help: "the project's name, 1 to 120 bytes" }, ...settingOptions(false)],
  run: (args) => {
    const changes = settingsOf(args);
    if (Object.keys(changes).length === 0) {
      throw new UsageError("'project update' needs at least one of --name, --monthly-allowance, --schedule-allowance, --retention-days, --capture-response-bodies", 'project update');
    }
    return withAdmin(async ({ admin }) => printJson(projectJson(await admin.updateProject(args.required('project'), changes))));
  },
};

export const PROJECT_COMMANDS: readonly Command[] = [projectCreate, projectList, projectShow, projectUpdate];
