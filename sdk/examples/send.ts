// Quick send: hands Ferry a body to deliver as it is, with its Content-Type, a retry budget and a delay.
// Run: FERRY_BASE_URL=http://localhost:8080 FERRY_API_KEY=fry_… [DESTINATION_URL=https://…] npx tsx send.ts
import { Ferry } from '@ferry/sdk';

const ferry = new Ferry({ baseUrl: process.env.FERRY_BASE_URL ?? 'http://localhost:8080', apiKey: process.env.FERRY_API_KEY ?? '' });
const destination = process.env.DESTINATION_URL ?? 'https://example.com/webhooks/orders';

const accepted = await ferry.requests.send(destination, JSON.stringify({ order: 42, total: '19.90' }), {
  contentType: 'application/json',
  retry: 5,
  delay: '30s',
  // Delivered to the destination as `X-Tenant: acme`.
  forwardHeaders: { 'X-Tenant': 'acme' },
});

// Accepted means stored durably, not yet delivered; requestId identifies this API call for support.
console.log(`accepted ${accepted.id} ${accepted.status} at ${accepted.scheduled_at} (call ${accepted.requestId})`);
