/** One REST call of a bench's setup: the envelope's `data` (and the response), or an error naming the route and status. */
export async function api<T>(base: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ data: T; res: Response }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return { data: (JSON.parse(text) as { data: T }).data, res };
}
