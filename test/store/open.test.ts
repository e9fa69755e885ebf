import { databaseInUri } from '../../src/store/open.js';

describe('database named in a MongoDB URI', () => {
  it('is the path of the URI, when there is one', () => {
    expect(databaseInUri('mongodb://localhost:27017/mergeq_prod')).toBe('mergeq_prod');
    expect(databaseInUri('mongodb://user:p%40ss@a:1,b:2/queues?replicaSet=rs0&authSource=admin')).toBe('queues');
    expect(databaseInUri('mongodb+srv://cluster0.example.net/my%20db?retryWrites=true')).toBe('my db');
  });

  it('is absent when the URI names none', () => {
    expect(databaseInUri('mongodb://localhost:27017')).toBeNull();
    expect(databaseInUri('mongodb://localhost:27017/')).toBeNull();
    expect(databaseInUri('mongodb+srv://cluster0.example.net/?retryWrites=true')).toBeNull();
  });
});
