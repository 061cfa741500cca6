import { createFileRoute } from '@tanstack/react-router';
import { AssistantPage } from '../../../features/assistant/AssistantPage';

export const Route = createFileRoute('/app/_shell/assistant')({
  component: AssistantPage,
});
