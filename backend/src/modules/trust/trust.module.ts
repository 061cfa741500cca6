import { Module } from '@nestjs/common';
import { InferenceModule } from '../inference/inference.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { RewardsModule } from '../rewards/rewards.module';
import { WalletModule } from '../wallet/wallet.module';
import { ModelProofsService } from './model-proofs.service';
import { PeerReplaysService } from './peer-replays.service';
import { SpotChecksRepository } from './spot-checks.repository';
import { SpotChecksService } from './spot-checks.service';

/**
 * Trust in strangers' nodes: verification of their replies, embeddings and model proofs (by a trusted generator's
 * recomputation, or by other owners' nodes), the verdicts, and what a failure costs the node (suspension, withheld
 * rewards, refunds). Used by the nodes room (what nodes send) and the worker (the trusted generator).
 */
@Module({
  imports: [InferenceModule, WalletModule, NotificationsModule, RewardsModule],
  providers: [SpotChecksService, SpotChecksRepository, PeerReplaysService, ModelProofsService],
  exports: [SpotChecksService, SpotChecksRepository, PeerReplaysService, ModelProofsService],
})
export class TrustModule {}
