import { Module } from '@nestjs/common';
import { NodeCredentialGuard } from '../../auth/node-credential.guard';
import { InferenceModule } from '../inference/inference.module';
import { RewardsModule } from '../rewards/rewards.module';
import { TrustModule } from '../trust/trust.module';
import { JoinTokensRepository } from './join-tokens.repository';
import { NodeAgentPackageService } from './node-agent-package.service';
import { NodeCatalogService } from './node-catalog.service';
import { NodeClaimsService } from './node-claims.service';
import { NodeJobEventsService } from './node-job-events.service';
import { NodeJobHoldsService } from './node-job-holds.service';
import { NodeJobSignals } from './node-job-signals.service';
import { NodeJobStore } from './node-job-store';
import { NodeSpeedService } from './node-speed.service';
import { NodeVerifyJobsService } from './node-verify-jobs.service';
import { NodesController } from './nodes.controller';
import { NodePoolsRepository } from './node-pools.repository';
import { NodesService } from './nodes.service';
import { PoolsService } from './pools.service';
import { ProviderNodesRepository } from './provider-nodes.repository';

/** The nodes tag: pairing, node credentials, the node operations (heartbeat, claim, events, return) and the owner's controls. */
@Module({
  imports: [InferenceModule, RewardsModule, TrustModule],
  controllers: [NodesController],
  providers: [
    NodesService,
    NodeJobStore,
    NodeClaimsService,
    NodeJobEventsService,
    NodeVerifyJobsService,
    NodeJobHoldsService,
    NodeSpeedService,
    NodeJobSignals,
    NodeCatalogService,
    NodeAgentPackageService,
    PoolsService,
    JoinTokensRepository,
    ProviderNodesRepository,
    NodePoolsRepository,
    NodeCredentialGuard,
  ],
})
export class NodesModule {}
