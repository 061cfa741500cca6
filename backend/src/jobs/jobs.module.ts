import { Global, Module } from '@nestjs/common';
import { JobLeases } from './job-leases';
import { JobSeal } from './job-seal';
import { StopSignals } from './stop-signals';
import { JobsService } from './jobs.service';

@Global()
@Module({ providers: [JobsService, JobLeases, JobSeal, StopSignals], exports: [JobsService, JobLeases, JobSeal, StopSignals] })
export class JobsModule {}
