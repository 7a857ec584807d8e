// k6/net/grpc: a stream's method, metadata and messages kept; the first TWIN_MESSAGES are each
// acknowledged (its sequence) once the write has returned, as an answer comes, so that a script
// sends its next; the rest are not.
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
