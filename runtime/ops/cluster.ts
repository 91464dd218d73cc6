/**
 * Cluster ops: where a master finds its workers, and where this process
 * serves (docs/architecture.md §3). Both read the run's cluster settings
 * (`--worker-addrs`, `RILL_WORKERS`, the pod's environment): see
 * runtime/cluster/worker_addrs.ts.
 *
 * @module
 */
import { resolveWorkerAddrs, selfAddr } from "../cluster/worker_addrs.ts";
import { attr, defineOp, type OpDef, slot } from "../core/op_def.ts";

const kubeGetWorkersAddrs = defineOp({
  type: "kube_get_workers_addrs",
  summary:
    "Out = the workers' host:port list: --worker-addrs or RILL_WORKERS, else the Ready pods that label_selector picks in Kubernetes",
  inputs: {},
  outputs: { Out: slot.raw() },
  attrs: {
    namespace: attr.string(""),
    label_selector: attr.string(""),
    // 0: each pod's container port named "rill".
    port: attr.int(0),
    exclude_self: attr.bool(true),
  },
  prepare(ctx) {
    const out = ctx.output("Out");
    const a = ctx.attrs;
    return async (scope, thread) => {
      const cluster = thread.run.cluster;
      // The run's flags win over what transpile baked into the op.
      const asked = cluster?.discovery ?? {};
      const addrs = await resolveWorkerAddrs({
        workerAddrs: cluster?.workerAddrs,
        labelSelector: asked.labelSelector ?? (a.label_selector || undefined),
        namespace: asked.namespace ?? (a.namespace || undefined),
        port: a.port > 0 ? a.port : undefined,
        excludeSelf: a.exclude_self,
        env: cluster?.env,
        expected: asked.minWorkers,
        timeoutMs: asked.timeoutMs,
        onProgress: asked.progress ? sayProgress : undefined,
        dialBy: asked.dialBy,
      });
      out.write(scope, addrs);
    };
  },
});

// Discovery's progress goes to stderr, beside errors, from whichever
// thread the op runs on: a run's output (stdout) stays the program's.
function sayProgress(line: string): void {
  console.error(line);
}

const selfAddrOp = defineOp({
  type: "self_addr",
  summary:
    "Out = this process's host:port: --listen, else the pod's IP (POD_IP)",
  inputs: {},
  outputs: { Out: slot.raw() },
  attrs: {},
  prepare(ctx) {
    const out = ctx.output("Out");
    return (scope, thread) => {
      const cluster = thread.run.cluster;
      out.write(scope, [
        selfAddr({ addr: cluster?.selfAddr, env: cluster?.env }),
      ]);
    };
  },
});

/** The cluster ops. */
export const CLUSTER_OPS: readonly OpDef[] = [kubeGetWorkersAddrs, selfAddrOp];
