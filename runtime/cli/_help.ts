/**
 * What each command takes, in one table: its usage line and its flags, each
 * flag with its help text. `--help` prints it whole, `mod.ts help CMD` and
 * `mod.ts CMD --help` the part of one command, and a flag given to a
 * command that does not take it is an error rather than ignored.
 *
 * @module
 */
import {
  DEFAULT_WORKER_LIMITS,
  formatLimit,
  WORKER_LIMIT_FLAGS,
} from "../cluster/worker_limits.ts";
import { ProgramError } from "../core/errors.ts";
import type { Flags } from "./_command_line.ts";

/** The commands: `run` is running a program, `mod.ts PROGRAM`. */
export type Command =
  | "run"
  | "dump"
  | "graph"
  | "vet"
  | "transpile"
  | "worker"
  | "ops";

/** Every command, in the order `--help` shows them. */
export const COMMAND_NAMES: readonly Command[] = [
  "run",
  "dump",
  "graph",
  "vet",
  "transpile",
  "worker",
  "ops",
];

// Each command's usage, as `--help` shows it.
const USAGE_LINES: Readonly<Record<Command, string>> = {
  run: "deno run -A mod.ts [run] <program.pb|program.txtpb|MODEL_DIR> [flags]",
  dump: "deno run -A mod.ts dump <program.pb|program.txtpb|MODEL_DIR> " +
    "[--all-attrs]",
  graph: "deno run -A mod.ts graph <program.pb|program.txtpb|MODEL_DIR>\n" +
    "                     [--format svg|dot|mermaid] [--out FILE]",
  vet: "deno run -A mod.ts vet <program.pb|program.txtpb|MODEL_DIR> " +
    "[--fetch name]",
  transpile:
    "deno run -A mod.ts transpile <program|MODEL_DIR> --out-dir DIR\n" +
    "                     [--label-selector S] [--port N]",
  worker: "deno run -A mod.ts worker DIR/worker.pb --listen HOST:PORT\n" +
    "                     [--insecure | RILL_TOKEN=…] " +
    "[--tls-cert FILE --tls-key FILE]\n" +
    "                     [--drain-timeout D] [--health-listen HOST:PORT]\n" +
    "                     [--max-calls N] [--max-call-bytes SIZE] " +
    "[--max-conns N]\n" +
    "                     [--max-conns-per-client N] [--read-timeout D]\n" +
    "                     [--idle-timeout D] [--call-timeout D]",
  ops: "deno run -A mod.ts ops <program.pb|program.txtpb|MODEL_DIR>",
};

/** Each command's usage line, for the usage error of a wrong call. */
export const COMMAND_USAGE: Readonly<Record<Exclude<Command, "run">, string>> =
  {
    dump: "usage: dump <program.pb|MODEL_DIR> [--all-attrs]",
    graph:
      "usage: graph <program.pb|MODEL_DIR> [--format svg|dot|mermaid] [--out FILE]",
    vet: "usage: vet <program.pb|MODEL_DIR> [--fetch name]",
    transpile:
      "usage: transpile <program.pb|MODEL_DIR> --out-dir DIR [--label-selector S] [--port N]",
    worker:
      "usage: worker <worker.pb> --listen HOST:PORT [limit flags] (see 'help worker')",
    ops: "usage: ops <program.pb|MODEL_DIR>",
  };

/** A flag: the commands that take it, and its help lines. */
interface FlagHelp {
  readonly flag: string;
  readonly commands: readonly Command[];
  readonly text: string;
}

const RUN: readonly Command[] = ["run"];

// The flags in the order `--help` lists them; the worker's limit flags come
// from their own table (worker_limits.ts).
const FLAGS: readonly FlagHelp[] = [
  {
    flag: "workers",
    commands: RUN,
    text:
      `  --workers N        threads for green threads, 1 to 256 (default: the
                     machine's cores, or 1 with --device webgpu, as a run
                     with workers keeps its tensors on the CPU; 1 keeps
                     everything on the main thread)`,
  },
  {
    flag: "device",
    commands: RUN,
    text:
      `  --device D         auto | webgpu | cpu (default auto: the GPU on a hardware
                     adapter for a program with large float32 tensors, else
                     the CPU)`,
  },
  {
    flag: "explain",
    commands: RUN,
    text:
      `  --explain          prints the run's plan to stderr: the device and the
                     workers, each with the reason it was chosen`,
  },
  {
    flag: "seed",
    commands: RUN,
    text:
      `  --seed N           seeds select's choices and random ops; on one worker
                     the same seed repeats the run (default: a fresh seed,
                     named in a panic or deadlock report)`,
  },
  {
    flag: "trace",
    commands: RUN,
    text:
      `  --trace FILE       writes the run's trace: FILE.json in the Chrome Trace
                     Event format (Perfetto, chrome://tracing), FILE.html as
                     one page with a zoomable timeline; a track per green
                     thread, grouped per worker, with waits, ops and flows`,
  },
  {
    flag: "record",
    commands: RUN,
    text:
      `  --record FILE      writes the order of every channel's sends, receives and
                     closes, and each select's case, to FILE (binary), so
                     --replay can run the same interleaving again`,
  },
  {
    flag: "replay",
    commands: RUN,
    text:
      `  --replay FILE      runs the program in the order FILE recorded, with its
                     seed, on any --workers; stops with one error line at
                     the first step that cannot follow it`,
  },
  {
    flag: "feed",
    commands: RUN,
    text:
      `  --feed name=f.npy  binds a block-0 variable to a .npy tensor; a variable a
                     feed op writes is fed through that op (repeatable, each
                     name once)`,
  },
  {
    flag: "fetch",
    commands: ["run", "vet"],
    text: `  --fetch name[=f.npy]
                     after the run, writes the variable to f.npy, or prints
                     "name <value>" when no file is given (repeatable;
                     default: the variables the program's fetch ops read);
                     vet: the variable counts as read`,
  },
  {
    flag: "params",
    commands: RUN,
    text: `  --params FILE      reads the parameters from this combined file`,
  },
  {
    flag: "worker-addrs",
    commands: RUN,
    text: `  --worker-addrs a,b,c
                     the workers kube_get_workers_addrs returns (host:port
                     each; default RILL_WORKERS, else Kubernetes in a pod)`,
  },
  {
    flag: "tls-ca",
    commands: RUN,
    text:
      `  --tls-ca FILE      the CA (PEM) the workers' certificates chain to: send
                     and recv then use TLS (default: the file RILL_TLS_CA
                     names, else plain HTTP/2)`,
  },
  {
    flag: "rpc-keepalive",
    commands: RUN,
    text:
      `  --rpc-keepalive D  a worker with calls in flight that sends nothing for D
                     (HTTP/2 pings unanswered) is lost: its calls fail, and
                     a transpiled master sends their pieces to another
                     worker (default 10s; D as 500ms, 30s, 1.5m, 2h)`,
  },
  {
    flag: "rpc-timeout",
    commands: RUN,
    text:
      `  --rpc-timeout D    the deadline of each call to a worker (default none:
                     a call may run as long as its worker is alive)`,
  },
  {
    flag: "rpc-redial",
    commands: RUN,
    text:
      `  --rpc-redial D     a lost worker of --worker-addrs or RILL_WORKERS is
                     dialled again, with backoff, for D: restarted at its
                     address within D, it takes pieces again (default 10s)`,
  },
  {
    flag: "out-dir",
    commands: ["transpile"],
    text:
      `  --out-dir DIR      transpile: writes DIR/master.pb and DIR/worker.pb (and
                     DIR/worker.pdiparams, the parameters of a model's
                     worker); run the master with --worker-addrs, or in
                     Kubernetes`,
  },
  {
    flag: "label-selector",
    commands: ["run", "transpile"],
    text:
      `  --label-selector S transpile: the master's kube_get_workers_addrs picks
                     the worker pods with this selector; run: picks them
                     with this one instead of master.pb's (default
                     RILL_LABEL_SELECTOR, else master.pb's)`,
  },
  {
    flag: "namespace",
    commands: RUN,
    text: `  --namespace NS     the namespace discovery searches (default
                     RILL_NAMESPACE, else master.pb's, else the pod's own)`,
  },
  {
    flag: "min-workers",
    commands: RUN,
    text:
      `  --min-workers N    discovery starts once N workers are ready (default:
                     once every matching pod is, and at least one)`,
  },
  {
    flag: "discovery-timeout",
    commands: RUN,
    text: `  --discovery-timeout D
                     how long discovery waits for them, printing
                     "waiting for workers: …" lines (default 2m)`,
  },
  {
    flag: "dial-by",
    commands: RUN,
    text:
      `  --dial-by ip|dns   dials each discovered worker by its pod IP (default),
                     or by its DNS name hostname.subdomain.namespace.svc
                     (a StatefulSet behind a headless Service), which a
                     TLS certificate can name (default RILL_DIAL_BY)`,
  },
  {
    flag: "port",
    commands: ["transpile"],
    text:
      `  --port N           transpile: the port workers listen on and the master
                     dials (default: any, and in a pod its port named rill)`,
  },
  {
    flag: "listen",
    commands: ["worker"],
    text:
      `  --listen HOST:PORT worker: where to serve (port 0 picks one); prints
                     "listening on HOST:PORT", then serves until SIGTERM,
                     when it drains (--drain-timeout);
                     refuses a tensor its program does not declare; needs
                     a token in RILL_TOKEN, which every call must carry,
                     unless --insecure`,
  },
  {
    flag: "insecure",
    commands: ["worker"],
    text:
      `  --insecure         worker: serves without a token, to anyone who reaches
                     it (prints a warning)`,
  },
  {
    flag: "tls-cert",
    commands: ["worker"],
    text:
      `  --tls-cert FILE    worker: serves TLS with this certificate chain (PEM)`,
  },
  {
    flag: "tls-key",
    commands: ["worker"],
    text: `  --tls-key FILE     worker: the private key (PEM) of --tls-cert`,
  },
  {
    flag: "drain-timeout",
    commands: ["worker"],
    text:
      `  --drain-timeout D  worker: on SIGTERM, turns NOT_SERVING, refuses new calls
                     (unavailable) and gives the calls in flight this long
                     to finish, then exits 0 (default 20s; keep it under
                     the pod's terminationGracePeriodSeconds)`,
  },
  {
    flag: "health-listen",
    commands: ["worker"],
    text: `  --health-listen HOST:PORT
                     worker: also serves gRPC's grpc.health.v1.Health, and
                     nothing else, here over plain HTTP/2 and without a
                     token, from the start (NOT_SERVING until the program
                     serves and while it drains; service "liveness":
                     SERVING while the process answers), for the
                     kubelet's grpc probes when --tls-cert is on; the
                     worker's own port answers it too`,
  },
  ...WORKER_LIMIT_FLAGS.map(({ flag }): FlagHelp => ({
    flag,
    commands: ["worker"],
    text: "", // workerLimitUsage() writes them, from their own table
  })),
  {
    flag: "format",
    commands: ["graph"],
    text:
      `  --format F         graph: svg (default; drawn by Rill, no renderer needed),
                     dot (Graphviz: dot -Tsvg) or mermaid (a flowchart)`,
  },
  {
    flag: "out",
    commands: ["graph"],
    text:
      `  --out FILE         graph: writes the picture to FILE (default: stdout)`,
  },
  {
    flag: "all-attrs",
    commands: ["dump"],
    text:
      `  --all-attrs        dump: also shows the bookkeeping Paddle saves (op_role,
                     op_callstack, ..., stop_gradient, ...), hidden by default`,
  },
];

const HEADER =
  `Rill runs Fluid-style concurrent programs (ProgramDesc protobufs).
`;

const FOOTER =
  `  --help, -h         shows this text (help CMD, CMD --help: one command's)
  --version          prints Rill's version

Exit codes: 0 success, 1 invalid input or usage, 2 panic or deadlock.
`;

const MODEL_DIR =
  `A MODEL_DIR is a directory PaddlePaddle saved: __model__ or one *.pdmodel,
or Paddle 3's inference.json (a PIR program, also read as a .json file), and
the parameters, one file per variable or combined (__params__, *.pdiparams).
`;

/**
 * The `--help` text: every command, then every flag.
 *
 * @returns The text.
 *
 * @example Usage
 * ```ts
 * import { usage } from "./_help.ts";
 * import { assertStringIncludes } from "@std/assert";
 *
 * assertStringIncludes(usage(), "--all-attrs");
 * assertStringIncludes(usage(), "--max-calls N");
 * ```
 */
export function usage(): string {
  const lines = COMMAND_NAMES.map((c) => `  ${USAGE_LINES[c]}`).join("\n");
  return `${HEADER}\nUsage:\n${lines}\n\n${MODEL_DIR}\nFlags:\n` +
    flagsText(() => true) + FOOTER;
}

/**
 * One command's help: its usage line and the flags it takes.
 *
 * @param command The command.
 * @returns The text.
 *
 * @example Usage
 * ```ts
 * import { commandHelp } from "./_help.ts";
 * import { assert, assertStringIncludes } from "@std/assert";
 *
 * const dump = commandHelp("dump");
 * assertStringIncludes(dump, "--all-attrs");
 * assert(!dump.includes("--workers"));
 * ```
 */
export function commandHelp(command: Command): string {
  const dir = command === "worker" ? "" : `\n${MODEL_DIR}`;
  return `Usage:\n  ${USAGE_LINES[command]}\n${dir}\nFlags:\n` +
    flagsText((f) => f.commands.includes(command)) +
    "  --help, -h         shows this text\n";
}

/**
 * Refuses every flag given that `command` does not take: a flag is never
 * ignored.
 *
 * @param command The command run.
 * @param values The command line's flags.
 * @throws {ProgramError} Naming the first such flag.
 *
 * @example Usage
 * ```ts
 * import { refuseFlags } from "./_help.ts";
 * import { parseCommandLine } from "./_command_line.ts";
 * import { assertThrows } from "@std/assert";
 *
 * const { values } = parseCommandLine(["dump", "p.pb", "--workers", "2"]);
 * assertThrows(() => refuseFlags("dump", values), Error, "--workers: the dump command does not take it");
 * ```
 */
export function refuseFlags(command: Command, values: Flags): void {
  const given = values as Record<string, unknown>;
  for (const { flag, commands } of FLAGS) {
    if (given[flag] === undefined || commands.includes(command)) continue;
    throw new ProgramError(
      commands.length === 1 && commands[0] !== "run"
        ? `--${flag}: only the ${commands[0]} command takes it`
        : `--${flag}: the ${command} command does not take it`,
    );
  }
}

// The help lines of the flags `wanted` picks, in the table's order.
function flagsText(wanted: (f: FlagHelp) => boolean): string {
  let text = "";
  let limits = false;
  for (const f of FLAGS) {
    if (!wanted(f)) continue;
    if (f.text !== "") text += f.text + "\n";
    else if (!limits) {
      text += workerLimitUsage();
      limits = true;
    }
  }
  return text;
}

// The usage lines of the limit flags, each with its default, read from the
// table of limits; the text wraps at 78 columns, indented as `--help`'s.
// Here rather than beside the worker command, which loads only when it
// runs (cli.ts).
function workerLimitUsage(): string {
  const metavar = { count: "N", bytes: "SIZE", duration: "D" } as const;
  const indent = " ".repeat(21);
  const lines = WORKER_LIMIT_FLAGS.map(({ flag, field, unit, summary }) => {
    const name = `  --${flag} ${metavar[unit]}`;
    const value = formatLimit(unit, DEFAULT_WORKER_LIMITS[field]);
    const text = wrap(`worker: ${summary} (default ${value})`, 78 - 21);
    const first = name.length < 20 ? name.padEnd(21) : `${name}\n${indent}`;
    return first + text.join(`\n${indent}`);
  });
  lines.push(`${indent}(D: 500ms, 30s, 1.5m, 2h; SIZE: 4096, 512KiB, 1GiB)`);
  return lines.join("\n") + "\n";
}

// Words into lines of at most `width` characters.
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(" ")) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= width) {
      lines[last] += ` ${word}`;
    } else {
      lines.push(word);
    }
  }
  return lines;
}
