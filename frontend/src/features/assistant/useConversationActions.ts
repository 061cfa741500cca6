import { useQueryClient } from '@tanstack/react-query';
import {
  chatQueries,
  deleteConversation,
  exportConversation,
  updateConversation,
  type ConversationExportFormat,
  type ConversationSummary,
} from '../../api/queries/chat';
import { downloadFile } from './downloadFile';
import { TEXT } from './texts';

interface Callbacks {
  onRenamed: (id: string, title: string) => void;
  onDeleted: (id: string) => void;
  onError: (message: string) => void;
}

/** A row's actions: each reports a failure through `onError`, and the list is refetched after every change. */
export function useConversationActions({ onRenamed, onDeleted, onError }: Callbacks) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: chatQueries.lists() });

  const rename = async (c: ConversationSummary, title: string) => {
    try {
      await updateConversation(c.id, { title });
      onRenamed(c.id, title);
    } catch {
      onError(TEXT.errors.rename);
    } finally {
      void refresh();
    }
  };
  const pin = async (c: ConversationSummary) => {
    try {
      await updateConversation(c.id, { is_pinned: !c.is_pinned });
    } catch {
      onError(`Failed to ${c.is_pinned ? 'unpin' : 'pin'} conversation`);
    } finally {
      void refresh();
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
      await deleteConversation(c.id);
      onDeleted(c.id);
    } catch {
      onError(TEXT.errors.delete);
    } finally {
      void refresh();
    }
  };

  return { rename, pin, exportAs, remove };
}

export type ConversationActions = ReturnType<typeof useConversationActions>;
