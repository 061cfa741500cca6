import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentUser, type AuthUser } from '../../auth/auth-user';
import type { RequestBody, ResponseBody } from '../../contract/types';
import { ApiKeysService } from './api-keys.service';

@Controller('api')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Get('api-keys')
  listApiKeys(@CurrentUser() user: AuthUser): Promise<ResponseBody<'listApiKeys', 200>> {
    return this.keys.list(user.id);
  }

  @Post('api-keys')
  @HttpCode(201)
  createApiKey(@CurrentUser() user: AuthUser, @Body() body: RequestBody<'createApiKey'>): Promise<ResponseBody<'createApiKey', 201>> {
    return this.keys.create(user.id, body);
  }

  @Delete('api-keys/:id')
  @HttpCode(204)
  revokeApiKey(@CurrentUser() user: AuthUser, @Param('id') id: string): Promise<void> {
    return this.keys.revoke(user.id, id);
  }
}
