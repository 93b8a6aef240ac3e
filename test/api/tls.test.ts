import https from 'node:https';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetRequestRequestSchema, GetRequestResponseSchema, RequestService } from '../../src/gen/ferry/v1/request_service_pb.js';
import { selfSignedCertificate, type TestCertificate } from '../support/certs.js';
import { createProject, startFerry, type FerryProcess } from '../support/ferry-process.js';
import { DEST } from '../support/fixture.js';
import { GrpcTestClient } from '../support/grpc-client.js';

function post(url: string, ca: Buffer, headers: Record<string, string>, body: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: 'POST', ca, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('TLS by configuration', () => {
  let cert: TestCertificate;
  let ferry: FerryProcess;
  let apiKey: string;
  beforeAll(async () => {
    cert = selfSignedCertificate();
    ferry = await startFerry({ env: { FERRY_TLS_CERT_FILE: cert.certFile, FERRY_TLS_KEY_FILE: cert.keyFile } });
    apiKey = (await createProject(ferry.dataDir)).apiKey;
  });
  afterAll(async () => {
    await ferry.stop();
  });

  it('serves the JSON API over HTTPS (HTTP/1.1) and gRPC over TLS on the same port', async () => {
    const httpsUrl = ferry.baseUrl.replace('http://', 'https://');
    const res = await post(`${httpsUrl}/send?url=${encodeURIComponent(DEST)}`, cert.cert, { authorization: `Bearer ${apiKey}` }, 'hi');
    expect(res.status).toBe(202);
    const id = (res.json as { data: { id: string } }).data.id;

    const port = new URL(ferry.baseUrl).port;
    const client = new GrpcTestClient(RequestService, `localhost:${port}`, apiKey, grpc.credentials.createSsl(cert.cert));
    try {
      const got = await client.call('GetRequest', GetRequestRequestSchema, GetRequestResponseSchema, { requestId: id });
      if (!got.ok) throw got.error;
      expect(got.value.request?.id).toBe(id);
    } finally {
      client.close();
    }
  });
});
