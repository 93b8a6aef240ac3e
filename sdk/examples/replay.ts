// Replay: a completed or cancelled request delivered again as a new request with a fresh attempt budget. Here the
// request is cancelled first so the example needs no destination; replays of failed deliveries work the same way.
// Run: FERRY_BASE_URL=… FERRY_API_KEY=… [DESTINATION_URL=https://…] npx tsx replay.ts
import { ConflictError, Ferry } from '@ferry/sdk';

const ferry = new Ferry({ baseUrl: process.env.FERRY_BASE_URL ?? 'http://localhost:8080', apiKey: process.env.FERRY_API_KEY ?? '' });

const original = await ferry.requests.create({ url: process.env.DESTINATION_URL ?? 'https://example.com/webhooks/orders', body: { order: 7 }, delay: '1h' });

// A request still on its way cannot be replayed.
try {
  await ferry.requests.replay(original.id);
} catch (error) {
  if (!(error instanceof ConflictError)) throw error;
  console.log(`replay of an active request: ${error.code}`);
}

await ferry.requests.cancel(original.id);
const replay = await ferry.requests.replay(original.id);
console.log(`replayed ${original.id} as ${replay.id} (${replay.status}, from ${replay.replayed_from_request_id})`);
