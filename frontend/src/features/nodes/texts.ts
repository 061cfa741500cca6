import type { NodeAllocation, NodeStatus } from '../../api/queries/nodes';

/** Every text of the "Your nodes" page, in one place. */
export const NODES_TEXTS = {
  title: 'Your nodes',
  intro: 'Machines you share with the network: each serves AI replies and earns GLOB for you.',
  loading: 'Loading your nodes...',
  loadError: 'Your nodes could not be loaded. The list will try again shortly.',

  pairButton: 'Pair a new node',
  pairing: 'Creating a join token...',
  pairTitle: 'Pair a new node',
  pairStep: 'On the machine you want to share, in a clone of the Glob Network repository, run:',
  pairValidity: 'The token in this command is valid for 15 minutes and works once.',
  pairExpires: 'Expires',
  pairAfter: 'The node appears in this list as soon as it has paired, and its status turns to online.',
  pairAgain: 'Create another token',
  pairHide: 'Done',
  copyCommand: 'Copy command',
  copied: 'Copied!',
  copyFailed: 'Select the command to copy it',

  emptyTitle: 'No nodes yet',
  emptyText:
    'Pair a machine to share it with the network: choose "Pair a new node", run the command it shows on that machine, and it will appear here.',

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
  earned: 'GLOB earned',
  pending: 'GLOB pending',

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
};
