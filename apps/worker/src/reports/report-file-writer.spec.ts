import { exportCell } from './report-file-writer';

describe(exportCell.name, () => {
  it('neutralises text that a spreadsheet would run, keeps numbers and empties', () => {
    expect(['=cmd|"/c calc"!A1', '-5', 'Ana', 42, -3, null].map(exportCell)).toEqual(['\'=cmd|"/c calc"!A1', "'-5", 'Ana', 42, -3, null]);
  });
});
