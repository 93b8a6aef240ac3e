/**
 * Delivery and timer work is split into a fixed number of shards; each request belongs to one for its whole
 * life, so whichever process owns that shard is the only one that delivers it. The shard count is part of a
 * deployment's configuration and must not change while requests exist.
 */
export function shardOf(requestId: string, shardCount: number): number {
  // FNV-1a over the UTF-16 code units: stable across processes and releases, cheap, and evenly spread for ULIDs.
  let hash = 0x811c9dc5;
  for (let i = 0; i < requestId.length; i++) {
    hash ^= requestId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shardCount;
}

/**
 * The shard of a project's flow key: where requests that name it first are placed (`newRequestIdOnShard`), so the
 * owner of that shard sees all of them and enforces the key's budget alone.
 */
export function flowKeyShard(projectId: string, key: string, shardCount: number): number {
  return shardOf(`${projectId}/${key}`, shardCount);
}

/** Every shard of a deployment with `shardCount` shards. */
export function allShards(shardCount: number): number[] {
  return Array.from({ length: shardCount }, (_, i) => i);
}
