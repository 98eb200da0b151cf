/**
 * The framework layers alone, for bench:sse-heap's breakdown of a connection's bytes: `express` is a bare Express
 * app with one SSE route writing to the response itself; `nest` is a bare Nest 12 app (Express adapter, no
 * middleware, guard, pipe or interceptor) whose `@Sse` route returns the service's shape — a bare Observable per
 * connection subscribed to one shared hot stream. Both write `: connected` first and publish the same frames.
 */
import 'reflect-metadata';
import http, { type Server } from 'node:http';
import { Controller, Module, Sse, type MessageEvent } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import { Observable, share, Subject } from 'rxjs';
import { rawSseFanout, type RawSseServer } from './raw-sse-server.js';

const feed = new Subject<MessageEvent>();
const shared = feed.pipe(share());
let open = 0;

@Controller('events')
class BareSseController {
  @Sse()
  stream(): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      subscriber.next({ comment: 'connected' });
      open++;
      shared.subscribe(subscriber);
      return () => void open--;
    });
  }
}

@Module({ controllers: [BareSseController] })
class BareSseModule {}

export async function startFrameworkSseServer(kind: 'express' | 'nest'): Promise<RawSseServer> {
  if (kind === 'nest') {
    const app = await NestFactory.create(BareSseModule, new ExpressAdapter(), { logger: false, bodyParser: false });
    await app.listen(0, '127.0.0.1');
    const { port } = (app.getHttpServer() as Server).address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}/events`,
      size: () => open,
      publish: (frame) => feed.next({ data: frame.slice('data: '.length, -2) }),
      close: () => app.close(),
    };
  }
  const fanout = rawSseFanout();
  const app = express();
  app.get('/events', (req, res) => fanout.accept(req, res));
  return fanout.listen(http.createServer(app), '/events');
}
