// Publishing (decision 0039): a publication scored, checked and written in one transaction with its record.
export {
  type ChangeType,
  type PreparedPublication,
  type Publication,
  type PublishOutcome,
  publishingRole,
} from './model.js';
export {
  PUBLICATION_BATCH,
  PublicationsStopped,
  preparePublication,
  publishIndicator,
  publishPrepared,
} from './publish.js';
export {
  changeOf,
  changeRowOf,
  historyRowOf,
  indicatorRowOf,
  type PublishedFacts,
  publishedEventData,
} from './rows.js';
