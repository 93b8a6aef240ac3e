// Schedules: preview a timing before trusting it, create a schedule, pause, resume and delete it.
// Run: FERRY_BASE_URL=… FERRY_API_KEY=… [DESTINATION_URL=https://…] npx tsx schedules.ts
import { Ferry, type Timing } from '@ferry/sdk';

const ferry = new Ferry({ baseUrl: process.env.FERRY_BASE_URL ?? 'http://localhost:8080', apiKey: process.env.FERRY_API_KEY ?? '' });
const timing: Timing = { type: 'cron', expression: '30 2 * * *', timezone: 'America/New_York' };

// Nothing is stored: the next runs by the rules that fire schedules, across the daylight saving change here.
const runs = await ferry.schedules.preview(timing, { after: '2027-03-13T12:00:00Z', count: 3 });
for (const run of runs) console.log(`would run at ${run}`);

const schedule = await ferry.schedules.create(
  { name: 'nightly report', timing, request: { url: process.env.DESTINATION_URL ?? 'https://example.com/report', body: { kind: 'nightly' }, retry: 3 } },
  // The same key and definition answer the same schedule, so a deploy script can run this again safely.
  { idempotencyKey: `nightly-report-${process.argv[2] ?? crypto.randomUUID()}` },
);
console.log(`created ${schedule.id} ${schedule.status}, next run ${schedule.next_run_at}`);

console.log(`paused: ${(await ferry.schedules.pause(schedule.id)).status}`);
console.log(`resumed: ${(await ferry.schedules.resume(schedule.id)).status}`);

const renamed = await ferry.schedules.update(schedule.id, { name: 'nightly report (v2)' });
console.log(`renamed: ${renamed.name}`);

for await (const each of ferry.schedules.list()) console.log(`listed ${each.id} ${each.name}`);

await ferry.schedules.delete(schedule.id);
console.log(`deleted ${schedule.id}`);
