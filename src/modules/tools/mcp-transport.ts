import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * A one-request transport: hands one JSON-RPC message to the per-request server and resolves with its response.
 * Responses are plain JSON bodies (never SSE-framed), so nothing is streamed.
 */
export class SingleRequestTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private resolveResponse: ((m: JSONRPCMessage) => void) | null = null;
  private rejectResponse: ((err: Error) => void) | null = null;

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.resolveResponse && ('result' in message || 'error' in message)) {
      const resolve = this.resolveResponse;
      this.resolveResponse = null;
      this.rejectResponse = null;
      resolve(message);
    }
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** A request resolves with its response; a notification resolves with null at once. */
  dispatch(message: JSONRPCMessage): Promise<JSONRPCMessage | null> {
    if (!('id' in message) || !('method' in message)) {
      this.onmessage?.(message);
      return Promise.resolve(null);
    }
    return new Promise((resolve, reject) => {
      this.resolveResponse = resolve;
      this.rejectResponse = reject;
      this.onmessage?.(message);
    });
  }

  /** The server gave up on the pending request without answering it: fail it instead of waiting forever. */
  abandon(err: Error): void {
    const reject = this.rejectResponse;
    if (!reject) return;
    this.resolveResponse = null;
    this.rejectResponse = null;
    reject(err);
  }
}
