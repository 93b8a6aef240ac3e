// Cancel: stops a request that has not completed. The first cancel answers `cancellation_requested` (an attempt in
// flight may still finish); a later one is harmless and answers `cancelled`.
// Run: FERRY_BASE_URL=… FERRY_API_KEY=… [DESTINATION_URL=https://…] npx tsx cancel.ts
import { Ferry } from '@ferry/sdk';

const ferry = new Ferry({ baseUrl: process.env.FERRY_BASE_URL ?? 'http://localhost:8080', apiKey: process.env.FERRY_API_KEY ?? '' });

const reminder = await ferry.requests.create({
  url: process.env.DESTINATION_URL ?? 'https://example.com/webhooks/reminders',
  body: { reminder: 'trial ends tomorrow' },
  delay: '1h',
});
console.log(`scheduled ${reminder.id} for ${reminder.scheduled_at}`);

const cancelled = await ferry.requests.cancel(reminder.id);
console.log(`cancel: ${cancelled.status}`);
console.log(`cancel again: ${(await ferry.requests.cancel(reminder.id)).status}`);

const detail = await ferry.requests.get(reminder.id);
console.log(`now ${detail.status}, ${detail.attempts.length} attempts`);
