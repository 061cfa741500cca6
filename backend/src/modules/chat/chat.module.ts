import { Module } from '@nestjs/common';
import { ChatController } from './chat.controller';
import { ChatService } from './chat.service';
import { ConversationsRepository } from './conversations.repository';

@Module({ controllers: [ChatController], providers: [ConversationsRepository, ChatService], exports: [ChatService, ConversationsRepository] })
export class ChatModule {}
