// The one error the attachment stage throws: a machine-readable code plus the index of the
// attachment it is about, so the verify route can answer 400 validation_error naming it.
// `detail` never quotes attachment content; it is safe to show to the client.

export type AttachmentErrorCode =
  | 'attachment_too_large'
  | 'attachment_undecodable'
  | 'too_many_attachments'
  | 'attachment_extraction_timeout';

export class AttachmentError extends Error {
  readonly code: AttachmentErrorCode;
  /** Position of the attachment in the request's `attachments` array. */
  readonly index: number;
  readonly detail: string;

  constructor(code: AttachmentErrorCode, index: number, detail: string) {
    super(`attachments[${index}]: ${detail}`);
    this.name = 'AttachmentError';
    this.code = code;
    this.index = index;
    this.detail = detail;
  }
}
