import { Module } from '@nestjs/common';
import { NotificationsModule } from '../notifications/notifications.module';
import { RewardsModule } from '../rewards/rewards.module';
import { WalletModule } from '../wallet/wallet.module';
import { ModelProofsService } from './model-proofs.service';
import { PeerReplaysService } from './peer-replays.service';
import { SpotChecksRepository } from './spot-checks.repository';
import { SpotChecksService } from './spot-checks.service';
import { StoppedRepliesService } from './stopped-replies.service';

/**
 * Trust in strangers' nodes: verification of their replies, embeddings and model proofs (by a trusted generator's
 * recomputation, or by other owners' nodes), the verdicts, and what a failure costs the node (suspension, withheld
 * rewards, refunds). Used by the nodes room (what nodes send) and the worker (the trusted generator); the inference room
 * uses only its checks of the form of a generator's answer (answer-checks.ts, json-schema-check.ts).
 */
@Module({
  imports: [WalletModule, NotificationsModule, RewardsModule],
  providers: [SpotChecksService, SpotChecksRepository, PeerReplaysService, ModelProofsService, StoppedRepliesService],
  exports: [SpotChecksService, SpotChecksRepository, PeerReplaysService, ModelProofsService, StoppedRepliesService],
})
export class TrustModule {}
