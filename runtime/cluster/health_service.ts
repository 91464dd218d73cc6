/**
 * gRPC's standard health service (`grpc.health.v1.Health`,
 * proto/grpc/health/v1/health.proto) for a worker: what the kubelet's
 * `grpc` probes, grpc-health-probe and load balancers ask. It needs no
 * token: it tells whether the worker takes calls, nothing more
 * (worker_server.ts exempts this service, and only it, from the token).
 *
 * The services it knows:
 *
 * - `""` (the server) and `rill.v1.WorkerService`: SERVING while the
 *   worker takes calls, NOT_SERVING before its program serves and while it
 *   drains (readiness);
 * - `liveness`: SERVING whenever the process answers, draining or not, so
 *   that a liveness probe restarts a hung worker and never one that is
 *   finishing its calls.
 *
 * Any other name is NOT_FOUND for `Check`, SERVICE_UNKNOWN for `Watch`, as
 * the protocol says.
 *
 * @module
 */

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  type HealthCheckResponse,
  HealthCheckResponse_ServingStatus as Status,
  HealthCheckResponseSchema,
} from "../../gen/grpc/health/v1/health_pb.ts";
import { WorkerService } from "../../gen/rill/v1/rpc_pb.ts";
import type { Readiness } from "./readiness.ts";

/**
 * The service name a liveness probe asks about: SERVING while the process
 * answers, even while it drains.
 */
export const LIVENESS_SERVICE = "liveness";

/**
 * The health service's fully qualified name, which its calls' paths start
 * with (`/grpc.health.v1.Health/Check`).
 */
export const HEALTH_SERVICE_NAME: string = Health.typeName;

/**
 * Routes `grpc.health.v1.Health` on `router`, reporting `readiness`.
 *
 * @param router The router of a Connect adapter.
 * @param readiness Whether the worker takes calls.
 *
 * @example Usage
 * ```ts
 * import { connectNodeAdapter } from "@connectrpc/connect-node";
 * import { routeHealth } from "./health_service.ts";
 * import { Readiness } from "./readiness.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const handler = connectNodeAdapter({
 *   routes: (router) => routeHealth(router, new Readiness(true)),
 * });
 * assertEquals(typeof handler, "function");
 * ```
 */
export function routeHealth(router: ConnectRouter, readiness: Readiness): void {
  router.service(Health, {
    check(request) {
      const status = statusOf(request.service, readiness);
      if (status === undefined) {
        throw new ConnectError(
          `health: no service "${request.service}" here`,
          Code.NotFound,
        );
      }
      return answer(status);
    },
    async *watch(request, context): AsyncGenerator<HealthCheckResponse> {
      let last: Status | undefined;
      // Bounded by the call: it ends when the caller hangs up or the
      // server closes (context.signal), never on its own.
      while (!context.signal.aborted) {
        const status = statusOf(request.service, readiness) ??
          Status.SERVICE_UNKNOWN;
        if (status !== last) yield answer(status);
        last = status;
        try {
          await readiness.changed(context.signal);
        } catch {
          return;
        }
      }
    },
  });
}

// The status of `service`, or undefined for a name not served here.
function statusOf(service: string, readiness: Readiness): Status | undefined {
  if (service === LIVENESS_SERVICE) return Status.SERVING;
  if (service !== "" && service !== WorkerService.typeName) return undefined;
  return readiness.ready ? Status.SERVING : Status.NOT_SERVING;
}

function answer(status: Status): HealthCheckResponse {
  return create(HealthCheckResponseSchema, { status });
}
