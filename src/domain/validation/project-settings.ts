import { FerryError } from '../errors.js';
import type { ProjectChanges } from '../project.js';
import { utf8Length } from './limits.js';

export const MAX_PROJECT_NAME_BYTES = 120;

/** The settings an operator chooses for a project, with the values each may take. */
export const PROJECT_SETTING_RANGES = {
  /** Requests a UTC calendar month; 0 stops the project from creating any. */
  monthlyAllowance: { field: 'monthly_allowance', min: 0, max: 1_000_000_000_000 },
  /** Schedules at once; 0 allows none. */
  scheduleAllowance: { field: 'schedule_allowance', min: 0, max: 1_000_000_000 },
  /** Days terminal requests stay visible. */
  retentionDays: { field: 'retention_days', min: 1, max: 3650 },
} as const;

export type ProjectSettingName = keyof typeof PROJECT_SETTING_RANGES;

/** The project's name trimmed, when it is 1 to 120 bytes. */
export function validateProjectName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || utf8Length(trimmed) > MAX_PROJECT_NAME_BYTES) {
    throw new FerryError('INVALID_FIELD', `The project name must be 1 to ${MAX_PROJECT_NAME_BYTES} bytes.`, 'name');
  }
  return trimmed;
}

/** One setting's value, when it is a whole number within the setting's range. */
export function validateProjectSetting(name: ProjectSettingName, value: number): number {
  const { field, min, max } = PROJECT_SETTING_RANGES[name];
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new FerryError('INVALID_FIELD', `${field} must be an integer from ${min} to ${max}.`, field);
  }
  return value;
}

/** The switch that keeps or drops response bodies, as given on the command line: `on` or `off`. */
export function parseCaptureResponseBodies(text: string): boolean {
  const value = text.trim().toLowerCase();
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new FerryError('INVALID_FIELD', 'capture_response_bodies must be on or off.', 'capture_response_bodies');
}

/** Changes to a project, each checked (the name trimmed); absent ones stay absent. */
export function validateProjectChanges(changes: ProjectChanges): ProjectChanges {
  const checked: { -readonly [K in keyof ProjectChanges]: ProjectChanges[K] } = {};
  if (changes.name !== undefined) checked.name = validateProjectName(changes.name);
  for (const name of Object.keys(PROJECT_SETTING_RANGES) as ProjectSettingName[]) {
    const value = changes[name];
    if (value !== undefined) checked[name] = validateProjectSetting(name, value);
  }
  if (changes.captureResponseBodies !== undefined) {
    if (typeof changes.captureResponseBodies !== 'boolean') {
      throw new FerryError('INVALID_FIELD', 'capture_response_bodies must be a boolean.', 'capture_response_bodies');
    }
    checked.captureResponseBodies = changes.captureResponseBodies;
  }
  return checked;
}
