import { createFileRoute } from '@tanstack/react-router';
import { WalletPage } from '../../../features/wallet/WalletPage';

export const Route = createFileRoute('/app/_shell/wallet')({
  component: WalletPage,
});
