// A 64 MiB float32 tensor to a worker in another process and back, over
// Connect-RPC (runtime/cluster/worker_client.ts), beside a plain TCP copy
// of the same bytes to the same process and back over loopback
// (Deno.listen / Deno.connect), in one run. Both copies are half-duplex,
// as a call is: the worker takes all the bytes, then sends them back.
// MB/s counts the bytes both ways (2 × 64 MiB) per round trip; the bar is
// RPC ≥ 0.5 × TCP (issue 11).
//
//   deno run -A bench/rpc_tensor.ts [rounds] [MiB] [chunkKiB]
//
// The worker is this file run with the argument `serve`.

import { Tensor } from "../kernels/tensor.ts";
import { connectWorker } from "../runtime/cluster/worker_client.ts";
import { serveWorker } from "../runtime/cluster/worker_server.ts";

if (Deno.args[0] === "serve") {
  const rpc = await serveWorker({
    token: "",
    handler: (_endpoint, tensors) => tensors,
  });
  const tcp = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  console.log(`${rpc.addr} 127.0.0.1:${tcp.addr.port}`);
  for await (const conn of tcp) echoTcp(conn).finally(() => conn.close());
} else {
  await main();
}

/** Reads an 8-byte length and that many bytes, then writes them back. */
async function echoTcp(conn: Deno.Conn): Promise<void> {
  const head = new Uint8Array(8);
  await readFull(conn, head);
  const bytes = new Uint8Array(
    Number(new DataView(head.buffer).getBigUint64(0)),
  );
  await readFull(conn, bytes);
  await writeFull(conn, bytes);
}

async function readFull(conn: Deno.Conn, into: Uint8Array): Promise<void> {
  for (let got = 0; got < into.length;) {
    const n = await conn.read(into.subarray(got));
    if (n === null) throw new Error("tcp: the peer closed early");
    got += n;
  }
}

async function writeFull(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let sent = 0; sent < bytes.length;) {
    sent += await conn.write(bytes.subarray(sent));
  }
}

async function tcpRoundTrip(addr: string, bytes: Uint8Array): Promise<void> {
  const [hostname, port] = addr.split(":");
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const head = new Uint8Array(8);
    new DataView(head.buffer).setBigUint64(0, BigInt(bytes.length));
    const back = new Uint8Array(bytes.length);
    const reading = readFull(conn, back);
    await writeFull(conn, head);
    await writeFull(conn, bytes);
    await reading;
  } finally {
    conn.close();
  }
}

async function main(): Promise<void> {
  const rounds = Number(Deno.args[0] ?? 7);
  const mib = Number(Deno.args[1] ?? 64);
  const chunkBytes = Number(Deno.args[2] ?? 1024) * 1024;
  const worker = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", new URL(import.meta.url).pathname, "serve"],
    stdout: "piped",
    stdin: "null",
  }).spawn();
  const reader = worker.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the worker exited");
    line += value;
  }
  await reader.cancel();
  const [rpcAddr, tcpAddr] = line.trim().split(" ");

  const n = (mib << 20) / 4;
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = i;
  const tensor = new Tensor("float32", [n / 1024, 1024], data);
  const bytes = new Uint8Array(data.buffer);
  using client = connectWorker(rpcAddr, {
    token: "",
    chunkBytes,
    timeoutMs: 120_000,
  });

  const rpcMs: number[] = [];
  const tcpMs: number[] = [];
  try {
    // One warm-up of each, then alternate so drift hits both alike.
    await client.call("echo", { x: tensor });
    await tcpRoundTrip(tcpAddr, bytes);
    for (let r = 0; r < rounds; r++) {
      let t0 = performance.now();
      const back = await client.call("echo", { x: tensor });
      rpcMs.push(performance.now() - t0);
      if (back.get("x")?.data[n - 1] !== n - 1) {
        throw new Error("rpc: wrong data");
      }
      t0 = performance.now();
      await tcpRoundTrip(tcpAddr, bytes);
      tcpMs.push(performance.now() - t0);
    }
  } finally {
    worker.kill("SIGKILL");
    await worker.status;
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
  const mbps = (ms: number) => (2 * mib * 1.048576) / (ms / 1000);
  const rpc = mbps(median(rpcMs));
  const tcp = mbps(median(tcpMs));
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" ");
  console.log(
    `${mib} MiB float32 round trip, ${rounds} rounds, chunk ${
      chunkBytes / 1024
    } KiB`,
  );
  console.log(
    `rpc: median ${median(rpcMs).toFixed(0)} ms, ${rpc.toFixed(0)} MB/s  (ms: ${
      fmt(rpcMs)
    })`,
  );
  console.log(
    `tcp: median ${median(tcpMs).toFixed(0)} ms, ${tcp.toFixed(0)} MB/s  (ms: ${
      fmt(tcpMs)
    })`,
  );
  console.log(`rpc / tcp: ${(rpc / tcp).toFixed(2)} (bar ≥ 0.5)`);
}
