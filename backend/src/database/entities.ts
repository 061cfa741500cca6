import { Identity, User } from '../modules/accounts/entities/user.entity';
import { ContactMessage, Testimonial } from '../modules/site/entities/contact.entity';
import { DownloadCount, DownloadEvent } from '../modules/site/entities/download.entity';
import { Release, ReleaseAsset } from '../modules/site/entities/release.entity';

/** Every TypeORM entity. A module's new entity is added here. */
export const ENTITIES = [User, Identity, Release, ReleaseAsset, DownloadEvent, DownloadCount, ContactMessage, Testimonial];
