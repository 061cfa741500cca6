import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { components } from '@glob/contract';

@Entity({ name: 'contact_messages' })
export class ContactMessage {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') name: string;
  @Column('text') email: string;
  @Column('text') subject: components['schemas']['ContactSubject'];
  @Column('text') message: string;
  @Column('boolean', { name: 'agreed_to_terms' }) agreedToTerms: boolean;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

@Entity({ name: 'testimonials' })
export class Testimonial {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') name: string;
  @Column('text') email: string;
  @Column('text', { nullable: true }) role: string | null;
  @Column('text') message: string;
  @Column('smallint') rating: number;
  @Column('boolean') consent: boolean;
  @Column('text') status: 'pending' | 'approved' | 'rejected';
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
