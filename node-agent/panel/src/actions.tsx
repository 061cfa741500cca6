import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PanelState } from '../../src/desktop/panel-api';
import { panelQueries, request } from './api';

/** A POST that answers the app's new state: the panel shows it at once instead of waiting for the next poll. */
export function useStateAction<Body>(path: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Body) => request<PanelState>('POST', path, body),
    onSuccess: (state) => client.setQueryData(panelQueries.state().queryKey, state),
  });
}

/** The first line of a failed action, for an alert beside the control that made it. */
export function ActionError({ error }: { error: Error | null }) {
  return error ? (
    <p className="panel-alert" role="alert">
      {error.message}
    </p>
  ) : null;
}
