import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Appends one line per finished test file (project, file, milliseconds spent in it) to SUITE_DURATIONS_FILE, so that
 * `npm test` can end with the slowest files and each project's share: the suite's time is watched, file by file.
 */
export default class DurationsReporter implements Reporter {
  onTestModuleEnd(module: TestModule): void {
    const out = process.env.SUITE_DURATIONS_FILE;
    if (out === undefined || out === '') return;
    const d = module.diagnostic();
    const ms = d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
    const line = { project: module.project.name, file: relative(process.cwd(), module.moduleId), ms: Math.round(ms) };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  }
}
