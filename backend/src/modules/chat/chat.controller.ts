import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import type { QueryParams, RequestBody, ResponseBody } from '../../contract/types';
import { ChatService } from './chat.service';

@Controller('api')
export class ChatController {
  constructor(private readonly chat: ChatService) {}

  @Get('chat/conversations')
  listConversations(
    @CurrentUser() user: AuthUser,
    @Query() q: QueryParams<'listConversations', 'limit'>,
  ): Promise<ResponseBody<'listConversations', 200>> {
    return this.chat.list(user.id, { search: q.search, limit: q.limit, cursor: q.cursor });
  }

  @Post('chat/conversations')
  createConversation(
    @CurrentUser() user: AuthUser,
    @Body() body: RequestBody<'createConversation'>,
  ): Promise<ResponseBody<'createConversation', 201>> {
    return this.chat.create(user.id, body);
  }

  @Get('chat/conversations/:id')
  getConversation(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<ResponseBody<'getConversation', 200>> {
    return this.chat.get(user.id, id);
  }

  @Put('chat/conversations/:id')
  updateConversation(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Body() body: RequestBody<'updateConversation'>,
  ): Promise<ResponseBody<'updateConversation', 200>> {
    return this.chat.update(user.id, id, body);
  }

  @Delete('chat/conversations/:id')
  @HttpCode(204)
  deleteConversation(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<void> {
    return this.chat.remove(user.id, id);
  }

  @Post('chat/conversations/:id/messages')
  addMessage(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Body() body: RequestBody<'addMessage'>,
  ): Promise<ResponseBody<'addMessage', 201>> {
    return this.chat.addMessage(user.id, id, body);
  }

  @Get('chat/conversations/:id/export')
  exportConversation(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Query() q: QueryParams<'exportConversation'>,
  ): Promise<ResponseBody<'exportConversation', 200>> {
    // The spec's default, here: the validator does not apply a default that stands beside a $ref (this one's).
    return this.chat.export(user.id, id, q.format ?? 'json');
  }
}
