/** A tiny fetch wrapper for e2e tests: JSON in and out, an optional session cookie carried along. */
export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class HttpClient {
  cookie: string | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly defaults: Record<string, string> = {},
  ) {}

  async request<T = any>(method: string, path: string, opts: { json?: unknown; body?: string; headers?: Record<string, string> } = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...this.defaults, ...(opts.headers ?? {}) };
    if (this.cookie && !('cookie' in headers)) headers.cookie = this.cookie;
    let body: string | undefined = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const m = /svc_session=([^;]*)/.exec(setCookie);
      if (m) this.cookie = m[1] ? `svc_session=${m[1]}` : null;
    }
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { headers });
  }
  post<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { json, headers });
  }
  patch<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, { json, headers });
  }
  put<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, { json, headers });
  }
  delete<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, { headers });
  }

  async login(email: string, password: string): Promise<HttpResult> {
    const res = await this.post('/api/auth/login', { email, password });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return res;
  }
}
