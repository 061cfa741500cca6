import { Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { notYetAvailable } from '../../contract/errors';

/**
 * The chat operations of the spec. Not live yet: each answers 501 with the Error body until the
 * chat issue lands (request validation against the spec already applies).
 */
@Controller('api')
export class ChatController {
  /** The caller's conversations */
  @Get('chat/conversations')
  listConversations(): never {
    return notYetAvailable();
  }

  /** Start a conversation */
  @Post('chat/conversations')
  createConversation(): never {
    return notYetAvailable();
  }

  /** A conversation with its messages */
  @Get('chat/conversations/:id')
  getConversation(): never {
    return notYetAvailable();
  }

  /** Rename, pin or unpin a conversation */
  @Put('chat/conversations/:id')
  updateConversation(): never {
    return notYetAvailable();
  }

  /** Delete a conversation */
  @Delete('chat/conversations/:id')
  @HttpCode(204)
  deleteConversation(): never {
    return notYetAvailable();
  }

  /** Save a message in a conversation */
  @Post('chat/conversations/:id/messages')
  addMessage(): never {
    return notYetAvailable();
  }

  /** Export a conversation as a file */
  @Get('chat/conversations/:id/export')
  exportConversation(): never {
    return notYetAvailable();
  }
}
