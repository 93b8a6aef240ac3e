import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Authenticator } from '../../app/authenticate.js';
import type { ProjectUsage } from '../../app/project-usage.js';
import { GetUsageResponseSchema, type ProjectService } from '../../gen/ferry/v1/project_service_pb.js';
import { callerProject } from './caller-project.js';
import { ts } from './to-proto.js';

export interface ProjectServiceDeps {
  readonly auth: Authenticator;
  readonly usage: ProjectUsage;
}

/** What a project may read about itself, for every protocol (the JSON gateway calls the same functions). */
export function projectServiceImpl(deps: ProjectServiceDeps): ServiceImpl<typeof ProjectService> {
  return {
    async getUsage(_req, ctx) {
      const u = await deps.usage.of(await callerProject(deps.auth, ctx));
      return create(GetUsageResponseSchema, {
        usage: {
          periodStart: ts(u.periodStart),
          periodEnd: ts(u.periodEnd),
          used: BigInt(u.used),
          allowance: BigInt(u.allowance),
          remaining: BigInt(u.remaining),
          schedules: BigInt(u.schedules),
          scheduleAllowance: BigInt(u.scheduleAllowance),
        },
      });
    },
  };
}
