import type { NodeAllocation, NodeStatus, PoolRole, PoolStatus } from '../../api/queries/nodes';

/** Every text of the "Your nodes" page, in one place. */
export const NODES_TEXTS = {
  title: 'Your nodes',
  intro: 'Machines you share with the network: each serves AI replies and earns GLOB for you.',
  loading: 'Loading your nodes...',
  loadError: 'Your nodes could not be loaded. The list will try again shortly.',

  desktopTitle: 'Share a computer with the desktop app',
  desktopText:
    'The desktop app shares a computer without a terminal: install it, open it and confirm the code it shows in your browser. It keeps sharing in the background and starts again after a restart.',
  desktopLink: 'Get the desktop app',
  serverText: 'For a server or Docker, pair with a command instead:',

  pairButton: 'Pair a new node',
  pairing: 'Creating a join token...',
  pairTitle: 'Pair a new node',
  pairStep: 'On the server you want to share (with Node.js 20.19 or later), run:',
  pairValidity: 'The token in this command is valid for 15 minutes and works once.',
  pairExpires: 'Expires',
  pairAfter: 'The node appears in this list as soon as it has paired, and its status turns to online.',
  /** The agent package the command runs, when this platform serves it. */
  pairPackage: (version: string, sha256: string) => `The command runs the node agent ${version} from this platform (SHA-256 ${sha256}).`,
  pairAgain: 'Create another token',
  pairHide: 'Done',
  copyCommand: 'Copy command',
  copied: 'Copied!',
  copyFailed: 'Select the command to copy it',

  emptyTitle: 'No nodes yet',
  emptyText:
    'Share a computer with the network: open the desktop app on it and confirm the code it shows (on a server, choose "Pair a new node" and run the command it shows). It will appear here.',

  listLabel: 'Your nodes',
  lastSeen: 'Last seen',
  never: 'Never',
  uptime: 'Uptime (30 days)',
  host: 'Machine',
  cpuOnly: 'CPU only',
  models: 'Models',
  noModels: 'None loaded',
  hardwareScore: 'Hardware score',
  measuredSpeed: 'Measured speed',
  tasksServed: 'Tasks served',
  agentVersion: 'Agent version',
  compute: 'Computes on',
  versionUnknown: 'Not reported',
  updateRequired:
    'Update required: this node takes no jobs until its agent is updated (the desktop app updates itself; otherwise stop it, then start it again with npx glob-node@latest).',
  earned: 'GLOB earned',
  pending: 'GLOB pending',

  earningsTitle: 'Earnings and checks (30 days)',
  earningsLoading: 'Loading earnings...',
  earningsError: 'The earnings of this node could not be loaded.',
  tokensServed: 'Tokens served',
  onlineHours: 'Hours online',
  perHour: 'GLOB per online hour',
  checks: 'Failed verifications of its work',
  checksValue: (c: { failed: number }) => (c.failed === 0 ? 'None' : `${c.failed} failed`),
  earningsSummary: (earned: string, pending: string, tokens: string) =>
    `${earned} GLOB earned and ${pending} GLOB pending for ${tokens} tokens served.`,
  dailyTable: 'Show daily figures as a table',
  day: 'Date',
  tokens: 'Tokens',

  rename: 'Rename',
  nameLabel: 'Node name',
  nameRequired: 'Enter a name',
  nameTooLong: 'At most 60 characters',
  save: 'Save',
  cancel: 'Cancel',
  pause: 'Pause',
  resume: 'Resume',

  allocationTitle: 'Allocation',
  allocationHint: 'How much of the machine the node may use. The node applies a change at its next heartbeat.',
  noGpu: 'This machine reports no GPU: the GPU share applies only when one is present.',
  saveAllocation: 'Save allocation',
  saved: 'Saved',

  revoke: 'Revoke',
  revokeTitle: 'Revoke this node?',
  revokeText: 'It stops serving at once and must be paired again. The GLOB it earned stays yours.',
  revokeConfirm: 'Revoke node',
  revoking: 'Revoking...',

  actionFailed: 'That did not work. Please try again.',
} as const;

export const STATUS_LABELS: Record<NodeStatus, string> = {
  online: 'Online',
  offline: 'Offline',
  paused: 'Paused',
};

export const ALLOCATION_LABELS: Record<keyof NodeAllocation, string> = {
  cpu_percent: 'CPU',
  memory_percent: 'Memory',
  gpu_percent: 'GPU',
  disk_gb: 'Disk',
};

/** How each share reads: a percentage of the machine, or gigabytes of disk for the models the node pulls. */
export const ALLOCATION_UNITS: Record<keyof NodeAllocation, string> = {
  cpu_percent: '%',
  memory_percent: '%',
  gpu_percent: '%',
  disk_gb: ' GB',
};

/** The texts of the pools section of "Your nodes". */
export const POOLS_TEXTS = {
  title: 'Pools',
  intro: 'Nodes that serve one model together, each computing its share of the layers.',
  loading: 'Loading your pools...',
  loadError: 'Your pools could not be loaded. The list will try again shortly.',
  emptyTitle: 'No pools yet',
  emptyText:
    "A model larger than any one of your machines can be split across several of them: create a pool of two or more nodes, and each computes its share of the model's layers.",
  listLabel: 'Your pools',

  model: 'Model',
  modelSize: 'Model size',
  layers: 'Layers',
  created: 'Created',
  notKnownYet: 'Not known yet',
  membersLabel: 'Members of',
  role: 'Role',
  noRole: 'Not assigned yet',
  status: 'Status',
  ready: 'Ready',
  notReady: 'Not ready',
  layerShare: 'Share of the layers',
  layersNotPlanned: 'Not planned yet',
  memory: 'Memory offered',

  create: 'Create pool',
  createTitle: 'Create a pool',
  nameLabel: 'Pool name',
  modelLabel: 'Model',
  modelChoose: 'Choose a model',
  modelHint: "One of the chosen nodes must hold the model's file; the others need no copy of it.",
  modelRequired: 'Choose a model',
  modelsError: 'The models could not be loaded. Please try again later.',
  nodesLegend: 'Nodes',
  nodesHint: 'Choose at least 2. Each computes a share of the layers in proportion to the memory it offers.',
  nodesTooFew: 'Choose at least 2 nodes',
  nodesTooMany: 'Choose at most 16 nodes',
  notEnoughNodes: 'A pool needs at least two of your nodes that are not in a pool yet.',
  alreadyIn: 'in',
  creating: 'Creating...',

  dissolve: 'Dissolve',
  dissolveTitle: 'Dissolve this pool?',
  dissolveText:
    'Its nodes stop sharing the model and serve on their own again. A reply the pool is writing now ends, and nobody is charged for it. The GLOB it earned stays yours.',
  dissolveConfirm: 'Dissolve pool',
  dissolving: 'Dissolving...',
} as const;

export const POOL_STATUS_LABELS: Record<PoolStatus, string> = {
  forming: 'Forming',
  healthy: 'Healthy',
  degraded: 'Degraded',
};

/** What each status means for the pool's model, beside the status itself. */
export const POOL_STATUS_HINTS: Record<PoolStatus, string> = {
  forming: 'It serves once every member is ready.',
  healthy: 'Every member is ready; the model is offered.',
  degraded: 'A member is offline or not ready: the model is not offered until it returns.',
};

export const POOL_ROLE_LABELS: Record<PoolRole, string> = {
  coordinator: 'Coordinator',
  shard: 'Shard',
};

/**
 * The texts of "Pair a new node" (/app/pair): a machine asks to pair without a token to copy (its app shows a code
 * and opens this page), and its owner, signed in, checks which machine it is and confirms it.
 */
export const PAIR_TEXTS = {
  title: NODES_TEXTS.pairTitle,
  intro: 'A machine that asks to pair shows a code. Enter it here to see which machine it is, then confirm to make it one of your nodes.',
  codeLabel: 'Pairing code',
  codeHint: 'The code shown on the machine you are pairing.',
  codeRequired: 'Enter the code the machine shows',
  lookUp: 'Find the machine',
  lookingUp: 'Looking up the code...',

  machineTitle: 'The machine that asks to pair',
  code: 'Code',
  name: NODES_TEXTS.nameLabel,
  hostname: 'Hostname',
  system: 'System',
  cpuCores: 'CPU cores',
  memory: 'Memory',
  gpu: 'GPU',
  noGpu: NODES_TEXTS.cpuOnly,
  ip: 'Asked from (IP address)',
  ipUnknown: 'Not known',
  asked: 'Asked',
  expires: NODES_TEXTS.pairExpires,
  check: 'Confirm only a machine you are pairing yourself, and only if it shows this same code.',
  confirm: 'Confirm pairing',
  confirming: 'Confirming...',
  cancel: NODES_TEXTS.cancel,

  doneTitle: 'Machine confirmed',
  done: (name: string) => `${name} will finish pairing by itself and then appear on the Your nodes page.`,
  toNodes: 'Go to Your nodes',

  unknownCode: 'This code is unknown or has expired. Start pairing again on the machine.',
  /** On a sign-in's success screen, when this tab came to the pair page with a code before signing in. */
  continuePairing: 'Continue to confirm the machine that asks to pair',
} as const;
