import { useMutation } from '@tanstack/react-query';
import { chatMutations, exportConversation, type ConversationExportFormat, type ConversationSummary } from '../../api/queries/chat';
import { downloadFile } from './downloadFile';
import { TEXT } from './texts';

interface Callbacks {
  onDeleted: (id: string) => void;
  onError: (message: string) => void;
}

/** A row's actions: each reports a failure through `onError`; the mutations refetch the list after every change. */
export function useConversationActions({ onDeleted, onError }: Callbacks) {
  const update = useMutation(chatMutations.update());
  const deletion = useMutation(chatMutations.remove());

  const rename = async (c: ConversationSummary, title: string) => {
    try {
      await update.mutateAsync({ id: c.id, title });
    } catch {
      onError(TEXT.errors.rename);
    }
  };
  const pin = async (c: ConversationSummary) => {
    try {
      await update.mutateAsync({ id: c.id, is_pinned: !c.is_pinned });
    } catch {
      onError(`Failed to ${c.is_pinned ? 'unpin' : 'pin'} conversation`);
    }
  };
  const exportAs = async (c: ConversationSummary, format: ConversationExportFormat) => {
    try {
      const file = await exportConversation(c.id, format);
      downloadFile(file.content, file.filename, file.mime_type);
    } catch {
      onError(TEXT.errors.export);
    }
  };
  const remove = async (c: ConversationSummary) => {
    if (!window.confirm(TEXT.confirmDelete)) return;
    try {
      await deletion.mutateAsync(c.id);
      onDeleted(c.id);
    } catch {
      onError(TEXT.errors.delete);
    }
  };

  return { rename, pin, exportAs, remove };
}

export type ConversationActions = ReturnType<typeof useConversationActions>;
