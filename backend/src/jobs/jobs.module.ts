import { Global, Module } from '@nestjs/common';
import { JobLeases } from './job-leases';
import { JobsService } from './jobs.service';

@Global()
@Module({ providers: [JobsService, JobLeases], exports: [JobsService, JobLeases] })
export class JobsModule {}
