import http from 'node:http';

export const BENCH_TOKEN = 'bench-token-0123456789abcdef';

export interface ApiResponse<T = any> {
  status: number;
  body: { code: number; msg: string; data: T; request_id: string } | null;
}

/** A keep-alive JSON client for one loopback server (node:http: less client overhead than fetch). */
export class ApiClient {
  private readonly agent: http.Agent;
  private readonly url: URL;

  constructor(baseUrl: string, private readonly token = BENCH_TOKEN, maxSockets = 32) {
    this.url = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  request<T = any>(method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<ApiResponse<T>> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = http.request({
        host: this.url.hostname, port: this.url.port, method, path, agent: this.agent, timeout: timeoutMs,
        headers: {
          Authorization: `Bearer ${this.token}`,
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}),
        },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
          } catch {
            reject(new Error(`${method} ${path}: non-JSON answer (${res.statusCode}): ${text.slice(0, 200)}`));
          }
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out after ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The request's `data`; throws unless HTTP 200 with business code 0. */
  async ok<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request<T>(method, path, body);
    if (res.status !== 200 || res.body?.code !== 0) {
      throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    return res.body.data;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Times sequential requests (one in flight, so each sample is one request's latency); fails on any non-success. */
export async function timeRequests(client: ApiClient, n: number, path: () => string, warmup = 20): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await client.ok('GET', path());
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = path();
    const t0 = performance.now();
    await client.ok('GET', p);
    samples.push(performance.now() - t0);
  }
  return samples;
}
