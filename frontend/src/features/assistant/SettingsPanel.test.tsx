import { describe, expect, it, jest } from '@jest/globals';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ConversationSettings } from '../../api/queries/chat';
import { SETTINGS_TEXT as T } from './reply-texts';
import { SettingsPanel } from './SettingsPanel';

const SETTINGS: ConversationSettings = { system_prompt: 'Be brief.', temperature: 0.2, max_tokens: 512, top_p: 0.5 };
const DEFAULTS: ConversationSettings = { system_prompt: '', temperature: 0.7, max_tokens: 2048, top_p: 0.9 };

function setup(onSave: (settings: ConversationSettings) => Promise<boolean>) {
  const onClose = jest.fn();
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SettingsPanel settings={SETTINGS} defaults={DEFAULTS} onSave={onSave} onClose={onClose} />
    </QueryClientProvider>,
  );
  return { user, onClose, save: () => screen.getByRole('button', { name: T.save }) };
}

describe('SettingsPanel', () => {
  it('refuses every value out of range, focuses the first, and clears an error once its field is edited', async () => {
    const onSave = jest.fn((_settings: ConversationSettings) => Promise.resolve(true));
    const { user, save } = setup(onSave);
    const temperature = screen.getByLabelText(T.temperature);
    const topP = screen.getByLabelText(T.topP);
    await user.clear(temperature);
    await user.type(temperature, '3');
    await user.clear(topP);
    await user.click(save());
    expect(screen.getByText(T.invalid.temperature)).toBeInTheDocument();
    expect(screen.getByText(T.invalid.top_p)).toBeInTheDocument();
    expect(screen.queryByText(T.invalid.max_tokens)).toBeNull();
    expect(temperature).toHaveAttribute('aria-invalid', 'true');
    expect(temperature).toHaveAccessibleDescription(T.invalid.temperature);
    expect(temperature).toHaveFocus();
    await user.clear(temperature);
    expect(screen.queryByText(T.invalid.temperature)).toBeNull();
    expect(screen.getByText(T.invalid.top_p)).toBeInTheDocument();
    expect(onSave).not.toHaveBeenCalled();
  });

  it('is busy while saving, shows the refusal and stays open; a later save that succeeds closes it', async () => {
    let answer = (_ok: boolean) => {};
    const onSave = jest.fn((_settings: ConversationSettings) => new Promise<boolean>((resolve) => (answer = resolve)));
    const { user, onClose } = setup(onSave);
    await user.click(screen.getByRole('button', { name: T.save }));
    const saving = await screen.findByRole('button', { name: T.saving });
    expect(saving).toBeDisabled();
    expect(screen.getByRole('button', { name: T.cancel })).toBeDisabled();
    expect(screen.getByRole('button', { name: T.defaults })).toBeDisabled();
    expect(onSave).toHaveBeenCalledWith(SETTINGS);
    answer(false);
    expect(await screen.findByRole('alert')).toHaveTextContent(T.failed);
    expect(screen.getByRole('button', { name: T.save })).toBeEnabled();
    expect(onClose).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name: T.save }));
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    answer(true);
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
  });

  it('Reset to defaults fills in the defaults, which Save then sends', async () => {
    const onSave = jest.fn((_settings: ConversationSettings) => Promise.resolve(true));
    const { user, save } = setup(onSave);
    await user.click(screen.getByRole('button', { name: T.defaults }));
    expect(screen.getByLabelText(T.systemPrompt)).toHaveValue('');
    expect(screen.getByLabelText(T.temperature)).toHaveValue(0.7);
    expect(screen.getByLabelText(T.maxTokens)).toHaveValue(2048);
    expect(screen.getByLabelText(T.topP)).toHaveValue(0.9);
    await user.click(save());
    await waitFor(() => expect(onSave).toHaveBeenCalledWith(DEFAULTS));
  });
});
