import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** A listener's open connections (upgraded ones included) and the requests it has not finished answering. */
export interface OpenWorkCounter {
  connections(): number;
  requests(): number;
  /**
   * Closes connections that never sent a byte. Node's closeIdleConnections leaves them open (their
   * headers timeout runs from the connect), yet they carry no request: a browser's speculative
   * preconnect would otherwise hold the stop until the deadline.
   */
  closeUnused(): void;
}

/** Counts what a listener still holds, for the one log line of an exit that could not wait for it. */
export function countOpenWork(server: Server): OpenWorkCounter {
  const sockets = new Set<Socket>();
  let requests = 0;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // 'close' of the response: answered, or its connection gone (a slow client cut, an aborted upload).
  server.on('request', (_request, response) => {
    requests += 1;
    response.once('close', () => (requests -= 1));
  });
  const closeUnused = () => {
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
  };
  return { connections: () => sockets.size, requests: () => requests, closeUnused };
}
