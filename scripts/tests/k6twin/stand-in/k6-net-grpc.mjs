// k6/net/grpc: a stream's method, metadata and messages kept. Each message is acknowledged (its
// sequence) once its write has returned, as an answer comes, until TWIN_MESSAGES have been written
// in all, so that a script sends its next and stops there (with WINDOW 1, TWIN_MESSAGES in all).
import { twin } from './k6.mjs';

export class Client {
  load() {}
  connect() {}
}

export class Stream {
  constructor(client, method, params = {}) {
    this.call = { method, metadata: params.metadata ?? {} };
    twin.streams ??= [];
    twin.streams.push(this.call);
  }

  on(event, handler) {
    if (event === 'data') this.acknowledge = handler;
  }

  write(message) {
    twin.messages.push(message);
    if (twin.messages.length < Number(process.env.TWIN_MESSAGES ?? 1)) {
      queueMicrotask(() => this.acknowledge?.({ sequence: message.sequence }));
    }
  }

  end() {}
}
