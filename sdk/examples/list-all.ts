// Pagination: `await` a list for one page, or `for await` over it for every item of every page.
// Run: FERRY_BASE_URL=… FERRY_API_KEY=… npx tsx list-all.ts
import { Ferry } from '@ferry/sdk';

const ferry = new Ferry({ baseUrl: process.env.FERRY_BASE_URL ?? 'http://localhost:8080', apiKey: process.env.FERRY_API_KEY ?? '' });

const firstPage = await ferry.requests.list({ limit: 2 });
console.log(`first page: ${firstPage.items.length} items, more: ${firstPage.next_cursor !== null}`);

const byStatus = new Map<string, number>();
let total = 0;
// Pages of 2 to show the paging; the cursor keeps the filters, and each page is fetched when the last is used up.
for await (const request of ferry.requests.list({ limit: 2 })) {
  total += 1;
  const status = request.status ?? 'unknown';
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
}
console.log(`total ${total}`);
for (const [status, count] of byStatus) console.log(`${status} ${count}`);
