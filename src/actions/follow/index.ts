// The follower actions, for the registry.
import type { Action } from '../action'
import { amFollowingDataset } from './am_following_dataset'
import { amFollowingGroup } from './am_following_group'
import { amFollowingUser } from './am_following_user'
import { datasetFolloweeCount } from './dataset_followee_count'
import { datasetFolloweeList } from './dataset_followee_list'
import { datasetFollowerCount } from './dataset_follower_count'
import { datasetFollowerList } from './dataset_follower_list'
import { followDataset } from './follow_dataset'
import { followGroup } from './follow_group'
import { followUser } from './follow_user'
import { followeeCount } from './followee_count'
import { followeeList } from './followee_list'
import { groupFolloweeCount } from './group_followee_count'
import { groupFolloweeList } from './group_followee_list'
import { groupFollowerCount } from './group_follower_count'
import { groupFollowerList } from './group_follower_list'
import { organizationFolloweeCount } from './organization_followee_count'
import { organizationFolloweeList } from './organization_followee_list'
import { organizationFollowerCount } from './organization_follower_count'
import { organizationFollowerList } from './organization_follower_list'
import { unfollowDataset } from './unfollow_dataset'
import { unfollowGroup } from './unfollow_group'
import { unfollowUser } from './unfollow_user'
import { userFolloweeCount } from './user_followee_count'
import { userFolloweeList } from './user_followee_list'
import { userFollowerCount } from './user_follower_count'
import { userFollowerList } from './user_follower_list'

export const actions: Action<any, any>[] = [
  followUser,
  followDataset,
  followGroup,
  unfollowUser,
  unfollowDataset,
  unfollowGroup,
  userFollowerCount,
  datasetFollowerCount,
  groupFollowerCount,
  organizationFollowerCount,
  userFollowerList,
  datasetFollowerList,
  groupFollowerList,
  organizationFollowerList,
  amFollowingUser,
  amFollowingDataset,
  amFollowingGroup,
  followeeCount,
  userFolloweeCount,
  datasetFolloweeCount,
  organizationFolloweeCount,
  groupFolloweeCount,
  followeeList,
  userFolloweeList,
  datasetFolloweeList,
  groupFolloweeList,
  organizationFolloweeList,
]
