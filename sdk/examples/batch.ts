// Batch: up to 100 requests accepted together or not at all; the acceptances come back in submitted order.
// Run: FERRY_BASE_URL=… FERRY_API_KEY=… [DESTINATION_URL=https://…] npx tsx batch.ts
import { Ferry, UnprocessableEntityError } from '@ferry/sdk';

const ferry = new Ferry({ baseUrl: process.env.FERRY_BASE_URL ?? 'http://localhost:8080', apiKey: process.env.FERRY_API_KEY ?? '' });
const destination = process.env.DESTINATION_URL ?? 'https://example.com/webhooks/inventory';

const skus = ['A-100', 'B-200', 'C-300'];
const accepted = await ferry.requests.batch(skus.map((sku, i) => ({ url: destination, body: { sku, restocked: true }, delay: `${i + 1}m` })));
accepted.forEach((acceptance, i) => console.log(`${skus[i]} ${acceptance.id} ${acceptance.status}`));

// One bad item refuses the whole batch, and the error names it.
try {
  await ferry.requests.batch([{ url: destination, body: {} }, { url: 'not a url' }]);
} catch (error) {
  if (!(error instanceof UnprocessableEntityError)) throw error;
  console.log(`refused ${error.code} at ${error.field}`);
}
