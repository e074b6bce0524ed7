// A TCP server on 127.0.0.1 that counts the connections it gets: proof that a sandboxed
// program could not reach the network.
import net from 'node:net';

export interface CountingListener {
  readonly port: number;
  connections(): number;
  close(): Promise<void>;
}

export async function countingListener(): Promise<CountingListener> {
  let count = 0;
  const server = net.createServer((s) => {
    count++;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
