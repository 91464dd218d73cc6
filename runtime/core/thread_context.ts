/**
 * What a running op sees besides its scope: the run's services (scheduler,
 * device, output, randomness, the pool when the run spans workers) and the
 * green thread it runs on. These are interfaces: the block runner
 * (`runtime/exec/`) makes the contexts, and an op depends on neither it nor
 * the pool (whose services ops reach through `_pool_services.ts`).
 *
 * @module
 */
import type { Device } from "../../kernels/device.ts";
import type { RunTracer } from "./run_tracer.ts";
import type { ScheduleGate } from "./schedule_gate.ts";
import type { BlockForeverOptions } from "../../scheduler/block_forever.ts";
import type { ChannelOpOptions } from "../../scheduler/channel.ts";
import type { GreenThread } from "../../scheduler/green_thread.ts";
import type { Resumer } from "../../scheduler/resumer.ts";
import type { Scheduler } from "../../scheduler/scheduler.ts";
import type { SelectOptions } from "../../scheduler/select.ts";
import type { SleepOptions } from "../../scheduler/timer.ts";
import type { WaitGroupWaitOptions } from "../../scheduler/wait_group.ts";

/** The services one run of a program shares among its green threads. */
export interface RunServices {
  /** The run's scheduler. */
  readonly scheduler: Scheduler;
  /** The device tensor kernels run on. */
  readonly device: Device;
  /** The run's seed (`--seed`). */
  readonly seed: number;
  /** Writes one line of program output (`print`). */
  print(line: string): void;
  /** Where the run's cluster ops find workers and this process. */
  readonly cluster?: ClusterSettings;
  /** Records the run's trace, when it is traced (see run_tracer.ts). */
  readonly tracer?: RunTracer;
  /** Records or replays the run's channel order (`--record`, `--replay`). */
  readonly schedule?: ScheduleGate;
}

/** How a run's cluster ops find the workers and this process. */
export interface ClusterSettings {
  /** `--worker-addrs a,b,c`: the workers, ahead of RILL_WORKERS. */
  readonly workerAddrs?: string;
  /** `--listen HOST:PORT`: where this process serves. */
  readonly selfAddr?: string;
  /** The environment to read (RILL_WORKERS, the pod's); default the process's. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * `--tls-ca` (or the file RILL_TLS_CA names): the CA, PEM, that workers'
   * certificates must chain to; set, the run's `send` and `recv` use TLS.
   */
  readonly tlsCa?: string;
  /**
   * `--rpc-keepalive`: a connection to a worker with calls in flight that
   * hears nothing for this many milliseconds (HTTP/2 pings unanswered) is
   * lost; default 10 s (runtime/cluster/worker_client.ts).
   */
  readonly rpcKeepaliveMs?: number;
  /**
   * `--rpc-timeout`: the deadline of each call to a worker, in
   * milliseconds; default none (the keepalive notices a dead worker).
   */
  readonly rpcTimeoutMs?: number;
  /**
   * How long a lost worker of a fixed list (`--worker-addrs`,
   * RILL_WORKERS) is re-dialled before the run gives up on it, in
   * milliseconds; 0 for never; default 10 s (runtime/ops/_worker_roster.ts).
   */
  readonly workerRedialMs?: number;
  /**
   * How `kube_get_workers_addrs` discovers workers in Kubernetes, where
   * the run says otherwise than the op's attributes.
   */
  readonly discovery?: DiscoveryOverrides;
}

/**
 * A run's say on Kubernetes discovery (`--label-selector`, `--namespace`,
 * `--min-workers`, `--discovery-timeout`, `--dial-by`,
 * `RILL_LABEL_SELECTOR`, `RILL_NAMESPACE`, `RILL_DIAL_BY`): each field
 * given wins over the op's attribute or the default. Plain data, as all
 * of ClusterSettings: a pooled run copies it to its Web Workers.
 */
export interface DiscoveryOverrides {
  /** The worker pods' label selector. */
  readonly labelSelector?: string;
  /** The namespace to search. */
  readonly namespace?: string;
  /** Enough ready workers to start with; default: every matching pod. */
  readonly minWorkers?: number;
  /** How long to wait for them, in milliseconds. */
  readonly timeoutMs?: number;
  /** Dial workers by pod IP (the default) or by their DNS names. */
  readonly dialBy?: "ip" | "dns";
  /**
   * Whether to print a line to stderr on each change while it waits
   * (`waiting for workers: 1 of 2 ready (…)`).
   */
  readonly progress?: boolean;
}

/**
 * The options of every scheduler operation an op may park on (send,
 * receive, select, sleep, a wait group, blocking forever). They name the
 * thread, so that the scheduler counts it as blocked and draws from its
 * random stream.
 */
export type ParkOptions =
  & ChannelOpOptions
  & SelectOptions
  & SleepOptions
  & BlockForeverOptions
  & WaitGroupWaitOptions;

/**
 * What ops pass to an operation whose result they return straight to the
 * block runner: the park options, and the thread's context as the resumer
 * that continues the block.
 */
export type ResumeOptions = ParkOptions & { readonly resumer: Resumer };

/**
 * One green thread's view of the run, as an op's run function gets it. The
 * block runner records the op a thread is at in `thread.where`, so that a
 * deadlock dump shows where each thread waits.
 */
export interface ThreadContext {
  /** The run's services. */
  readonly run: RunServices;
  /** The green thread running the ops. */
  readonly thread: GreenThread;
  /**
   * What the thread's ops pass to the operations they park on and then
   * await or chain themselves: it names the thread.
   */
  readonly parkAs: ParkOptions;
  /**
   * What an op passes to a channel operation or select whose result it
   * returns straight to the block runner: the thread, and the context as
   * the resumer. Such an operation returns `PARKED` when it waits.
   */
  readonly resumeAs: ResumeOptions;
  /** The resumer of `resumeAs`. */
  readonly resumer: Resumer;
}
