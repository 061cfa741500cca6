import { Module } from '@nestjs/common';
import { NodeCredentialGuard } from '../../auth/node-credential.guard';
import { InferenceModule } from '../inference/inference.module';
import { RewardsModule } from '../rewards/rewards.module';
import { TrustModule } from '../trust/trust.module';
import { JoinTokensRepository } from './join-tokens.repository';
import { NodeAgentPackageService } from './node-agent-package.service';
import { NodeCatalogService } from './node-catalog.service';
import { NodeJobsService } from './node-jobs.service';
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
    NodeJobsService,
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
