// Structured create with an idempotency key: sending the same input under the same key again answers the first
// request instead of creating a second, so a caller may retry after a crash without double delivery.
// Run: FERRY_BASE_URL=… FERRY_API_KEY=… [DESTINATION_URL=https://…] npx tsx create-idempotent.ts [order-id]
import { ConflictError, Ferry } from '@ferry/sdk';

const ferry = new Ferry({ baseUrl: process.env.FERRY_BASE_URL ?? 'http://localhost:8080', apiKey: process.env.FERRY_API_KEY ?? '' });
const orderId = process.argv[2] ?? crypto.randomUUID();
const input = {
  url: process.env.DESTINATION_URL ?? 'https://example.com/webhooks/orders',
  body: { event: 'order.paid', order: orderId },
  retry: { max_attempts: 8 },
  metadata: { order: orderId },
};

const first = await ferry.requests.create(input, { idempotencyKey: `order-paid-${orderId}` });
console.log(`created ${first.id}`);

const again = await ferry.requests.create(input, { idempotencyKey: `order-paid-${orderId}` });
console.log(`same key, same input: ${again.id}`);

try {
  await ferry.requests.create({ ...input, body: { event: 'order.refunded', order: orderId } }, { idempotencyKey: `order-paid-${orderId}` });
} catch (error) {
  if (!(error instanceof ConflictError)) throw error;
  console.log(`same key, other input: ${error.status} ${error.code}`);
}
