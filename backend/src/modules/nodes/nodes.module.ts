import { Module } from '@nestjs/common';
import { NodeCredentialGuard } from '../../auth/node-credential.guard';
import { InferenceModule } from '../inference/inference.module';
import { RewardsModule } from '../rewards/rewards.module';
import { TrustModule } from '../trust/trust.module';
import { WalletModule } from '../wallet/wallet.module';
import { JoinTokensRepository } from './join-tokens.repository';
import { NodeAgentPackageService } from './node-agent-package.service';
import { NodeCatalogService } from './node-catalog.service';
import { NodeClaimsService } from './node-claims.service';
import { NodeJobEventsService } from './node-job-events.service';
import { NodeJobHoldsService } from './node-job-holds.service';
import { NodeJobSignals } from './node-job-signals.service';
import { NodeJobStore } from './node-job-store';
import { NodeSelfService } from './node-self.service';
import { NodeSpeedService } from './node-speed.service';
import { NodeVerifyJobsService } from './node-verify-jobs.service';
import { NodesController } from './nodes.controller';
import { DeviceCodesRepository } from './device-codes.repository';
import { DevicePairingService } from './device-pairing.service';
import { NodePoolsRepository } from './node-pools.repository';
import { NodesService } from './nodes.service';
import { PoolsService } from './pools.service';
import { ProviderNodesRepository } from './provider-nodes.repository';

/**
 * The nodes tag: pairing, node credentials, the node operations (heartbeat, claim, events, return), the owner's controls
 * and the node's own control panel (the owner's view and controls of one node, with its credential).
 * A remote job's services, by job: claims, events and settlement, `verify` jobs, holds (renewals, give-backs, missed
 * first-token deadlines) and speed, over their state in Redis (NodeJobStore) and the signals from elsewhere (NodeJobSignals).
 * Work goes one way: down to the inference core (RepliesService), trust, rewards and the catalog, never back.
 */
@Module({
  imports: [InferenceModule, RewardsModule, TrustModule, WalletModule],
  controllers: [NodesController],
  providers: [
    NodesService,
    NodeSelfService,
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
    DevicePairingService,
    DeviceCodesRepository,
    JoinTokensRepository,
    ProviderNodesRepository,
    NodePoolsRepository,
    NodeCredentialGuard,
  ],
})
export class NodesModule {}
