import { Foundation1763700000000 } from './1763700000000-Foundation';
import { Accounts1763800000000 } from './1763800000000-Accounts';
import { Wallet1763900000000 } from './1763900000000-Wallet';
import { Inference1764000000000 } from './1764000000000-Inference';
import { Chat1764100000000 } from './1764100000000-Chat';
import { AccountSafety1764200000000 } from './1764200000000-AccountSafety';
import { ProviderNodes1764300000000 } from './1764300000000-ProviderNodes';
import { FundedRewards1764400000000 } from './1764400000000-FundedRewards';
import { NodePools1764500000000 } from './1764500000000-NodePools';
import { ApiKeys1764600000000 } from './1764600000000-ApiKeys';
import { NodeTrust1764700000000 } from './1764700000000-NodeTrust';
import { FairRewards1764800000000 } from './1764800000000-FairRewards';
import { AgentReports1764900000000 } from './1764900000000-AgentReports';
import { DiskAllocation1765000000000 } from './1765000000000-DiskAllocation';
import { StoppedReplies1765100000000 } from './1765100000000-StoppedReplies';
import { ConversationSettings1765200000000 } from './1765200000000-ConversationSettings';
import { TwoFactor1765300000000 } from './1765300000000-TwoFactor';
import { SessionDevices1765400000000 } from './1765400000000-SessionDevices';
import { Passkeys1765500000000 } from './1765500000000-Passkeys';
import { NodeSuspensions1765600000000 } from './1765600000000-NodeSuspensions';
import { PeerRecomputation1765700000000 } from './1765700000000-PeerRecomputation';
import { DeviceCodes1765800000000 } from './1765800000000-DeviceCodes';
import { SignedReleases1765900000000 } from './1765900000000-SignedReleases';
import { NodeRewardTotals1766000000000 } from './1766000000000-NodeRewardTotals';

/** Every migration, oldest first. A new migration is added here. */
export const MIGRATIONS = [
  Foundation1763700000000,
  Accounts1763800000000,
  Wallet1763900000000,
  Inference1764000000000,
  Chat1764100000000,
  AccountSafety1764200000000,
  ProviderNodes1764300000000,
  FundedRewards1764400000000,
  NodePools1764500000000,
  ApiKeys1764600000000,
  NodeTrust1764700000000,
  FairRewards1764800000000,
  AgentReports1764900000000,
  DiskAllocation1765000000000,
  StoppedReplies1765100000000,
  ConversationSettings1765200000000,
  TwoFactor1765300000000,
  SessionDevices1765400000000,
  Passkeys1765500000000,
  NodeSuspensions1765600000000,
  PeerRecomputation1765700000000,
  DeviceCodes1765800000000,
  SignedReleases1765900000000,
  NodeRewardTotals1766000000000,
];
